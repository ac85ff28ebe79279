/* Outputs that cannot be destroyed, signals and late failures (issue 16, classes 3, 6, 7
 * and the command-line items of 8), driven through the idemsim program. The corpus below
 * is one case per line: the arguments, the exit code and a line the program must print;
 * every case also proves that nothing ran (standard output empty, when it says so) and
 * that no temporary is left. The tests after it need more than arguments: a symlink
 * planted at the old predictable temporary name, a signal that lands while a temporary is
 * open, a closed pipe. Nothing sleeps: a child that must be mid-run is one blocked writing
 * its trace to a FIFO this test reads, or its report to a pipe this test stops reading. */
#define _GNU_SOURCE /* F_SETPIPE_SZ */

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_cli.h"

#define SCENARIO "scenarios/default.json"
#define QUICK "scenarios/09_in_progress_202.json"
#define QUICK_COPIES 150
#define VARY "network.default.loss=0:0.1:0.05"

/* ------------------------------------------------------------------ the scratch directory */

static char scratch_file[512];

/* A path in the scratch directory; valid until the next call. */
static const char *at(const char *name)
{
    return test_cli_in_scratch(scratch_file, name);
}

static void copy_file(const char *source, const char *target)
{
    size_t length = 0;
    char *text = test_cli_read_all(source, &length);
    ck_assert_ptr_nonnull(text);
    FILE *file = fopen(target, "wb");
    ck_assert_ptr_nonnull(file);
    ck_assert_uint_eq(fwrite(text, 1, length, file), length);
    ck_assert_int_eq(fclose(file), 0);
    free(text);
}

static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "wb");
    ck_assert_ptr_nonnull(file);
    fputs(text, file);
    ck_assert_int_eq(fclose(file), 0);
}

/* Names in the scratch directory that look like a temporary (".tmp."), each followed by a
 * space; "" when there is none. */
static void temporaries(char *names, size_t size)
{
    DIR *directory = opendir(test_scratch);
    ck_assert_ptr_nonnull(directory);
    names[0] = '\0';
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        if (strstr(entry->d_name, ".tmp.") != NULL)
            snprintf(names + strlen(names), size - strlen(names), "%s ", entry->d_name);
    }
    closedir(directory);
}

static void assert_no_temporary(void)
{
    char names[2048];
    temporaries(names, sizeof names);
    ck_assert_msg(names[0] == '\0', "temporaries left behind: %s", names);
}

static void setup(void)
{
    test_cli_make_scratch("outputs");
    copy_file(SCENARIO, at("d.json"));
    char hard[512];
    test_cli_in_scratch(hard, "hard.json");
    ck_assert_int_eq(link(at("d.json"), hard), 0);
    ck_assert_int_eq(symlink("d.json", at("link.json")), 0);
    ck_assert_int_eq(mkfifo(at("fifo.json"), 0644), 0);
    ck_assert_int_eq(mkdir(at("dir"), 0755), 0);
    ck_assert_int_eq(symlink("dir", at("dirlink")), 0);
}

static void teardown(void)
{
    test_cli_remove_scratch();
}

/* ------------------------------------------------------------------ the corpus */

typedef struct {
    const char *arguments[24]; /* "@x" is the scratch file x; "S" the scenario copy */
    int exit_code;
    const char *message; /* a substring of standard error ("@" is the scratch directory) */
    bool nothing_ran;    /* standard output stays empty */
} Case;

static const Case corpus[] = {
    /* "-" is not standard output: refused rather than written as a file named "-" */
    {{"run", "S", "--json", "-"},
     2,
     "--json -: outputs are written to named files, not to standard output",
     true},
    {{"sweep", "S", "--vary", VARY, "--seeds", "1", "--csv", "-"},
     2,
     "--csv -: outputs are written to named files",
     true},
    /* Class 3: two outputs, or an output and an input, that are one file. */
    {{"run", "S", "--json", "@x", "--trace", "@x", "-q"},
     2,
     "--json @/x and --trace @/x are the same file; give each output its own",
     true},
    {{"run", "S", "--json", "@x", "--svg", "@x"},
     2,
     "--json @/x and --svg @/x are the same file",
     true},
    {{"run", "S", "--csv", "@x", "--json", "@dir/../x"},
     2,
     "--json @/dir/../x and --csv @/x are the same file",
     true},
    {{"run", "S", "--json", "S"},
     2,
     "--json @/d.json is the same file as the scenario @/d.json, which it would replace",
     true},
    {{"run", "S", "--csv", "@hard.json"},
     2,
     "--csv @/hard.json is the same file as the scenario @/d.json",
     true},
    {{"run", "S", "--trace", "@link.json"},
     2,
     "--trace @/link.json is the same file as the scenario @/d.json",
     true},
    {{"sweep", "S", "--vary", VARY, "--seeds", "1", "--csv", "@x", "--svg", "@x"},
     2,
     "--csv @/x and --svg @/x are the same file",
     true},
    {{"sweep", "S", "--vary", VARY, "--seeds", "1", "--svg", "S", "--csv", "@x"},
     2,
     "--svg @/d.json is the same file as the scenario @/d.json",
     true},
    {{"check", "S", "--junit", "@hard.json"},
     2,
     "--junit @/hard.json is the same file as the scenario @/d.json",
     true},
    {{"check", "@", "--junit", "S"}, 2, "--junit @/d.json is the same file as the scenario", true},
    /* Class 7: a bad output path fails before any run. */
    {{"check", "S", "--junit", "@missing/j.xml"},
     2,
     "@/missing/j.xml: cannot write: No such file or directory",
     true},
    {{"sweep", "S", "--vary", VARY, "--seeds", "1", "--csv", "@x", "--svg", "@missing/x.svg"},
     2,
     "@/missing/x.svg: cannot write: No such file or directory",
     true},
    {{"run", "S", "--svg", "@dir"}, 2, "@/dir: cannot write: is a directory", true},
    /* Class 6: the errno of the failing write. */
    {{"run", "S", "--json", "/dev/full", "-q"},
     2,
     "/dev/full: cannot write: No space left on device",
     true},
    {{"sweep", "S", "--vary", VARY, "--seeds", "1", "--csv", "/dev/full", "-q"},
     2,
     "/dev/full: cannot write: No space left on device",
     true},
    /* Class 8: a FIFO scenario is refused, not read forever. */
    {{"run", "@fifo.json"}, 2, "@/fifo.json: cannot read file: a FIFO, not a regular file", true},
    {{"validate", "@fifo.json"}, 2, "@/fifo.json: cannot read file: a FIFO", true},
    {{"view", "@fifo.json", "--headless", "--png", "@x.png"},
     2,
     "@/fifo.json: cannot read file: not a regular file",
     true},
    {{"view", "S", "--headless", "--png", "S"}, 2, "is the same file as the scenario", true},
    {{"check", "@fifo.json"}, 2, "@/fifo.json: cannot read file: a FIFO", false},
    {{"sweep", "@fifo.json", "--vary", VARY}, 2, "@/fifo.json: cannot read file: a FIFO", true},
    {{"run", "/dev/null"}, 2, "/dev/null: cannot read file: a character device", true},
    /* Class 8: a mode given twice is a typo (view: test_view_refuses_the_same_mode_twice). */
    {{"run", "S", "--mode", "idempotent", "--mode", "idempotent"},
     2,
     "--mode idempotent given twice",
     true},
    /* Class 8: a grid step below a double's precision would give two points one value. */
    {{"sweep", "S", "--vary", "seed=1e16:1.0000000000000004e16:1"},
     2,
     "two values would both be 1e+16",
     true},
    /* Class 8: merge reads only what sweep writes. */
    {{"merge", "@dir"}, 2, "@/dir: is a directory, not a shard CSV", true},
    {{"merge", "@crafted.csv"}, 2, "@/crafted.csv: line 7: unknown metric 'double,x'", true},
    {{"merge", "@twice.csv"}, 2, "@/twice.csv: line 7: 'lost' is listed twice", true},
    /* Issue 24, arguments: an option given twice is refused unless documented to repeat. */
    {{"run", "S", "--json", "@x", "--json", "@y", "-q"}, 2, "option --json given twice", true},
    {{"run", "S", "--seed", "1", "--seed", "2"}, 2, "option --seed given twice", true},
    {{"run", "S", "-q", "--quiet"}, 2, "option --quiet given twice", true},
    {{"run", "S", "--max-events", "9", "--max-events", "10"},
     2,
     "option --max-events given twice",
     true},
    {{"run", "S", "--svg", "@x", "--svg", "@y"}, 2, "option --svg given twice", true},
    {{"check", "S", "--junit", "@x", "--junit", "@y"}, 2, "option --junit given twice", true},
    {{"explain", "S", "--op", "1", "--op", "2"}, 2, "option --op given twice", true},
    {{"sweep", "S", "--vary", VARY, "--seeds", "1", "--seeds", "2"},
     2,
     "option --seeds given twice",
     true},
    {{"sweep", "S", "--vary", VARY, "--set", "network.default.loss=0.5"},
     2,
     "--set and --vary both give network.default.loss",
     true},
    {{"sweep", "S", "--vary", VARY, "--set", "$.network.default.loss=0.5"},
     2,
     "--set and --vary both give network.default.loss",
     true},
    {{"sweep", "S", "--vary", VARY, "--metric", "double", "--metric", "lost", "--metric", "double"},
     2,
     "--metric double given twice",
     true},
    {{"merge", "@crafted.csv", "--csv", "@x", "--csv", "@y"}, 2, "option --csv given twice", true},
    /* Issue 24: a field that can have no effect is a warning with its path, or with --strict
     * an error before anything runs. */
    {{"validate", "S", "--set", "server.idempotency.race_window_ms=50"},
     0,
     "@/d.json: $.server.idempotency.race_window_ms: warning: has no effect unless reserve is "
     "'check-then-insert'",
     false},
    {{"validate", "S", "--set", "clients[0].retry.budget={\"ratio\": 0.1}", "--set",
      "clients[0].retry.max_attempts=1", "--strict"},
     2,
     "@/d.json: $.clients[0].retry.budget: has no effect with max_attempts 1: there is no retry "
     "to spend a token on (an error with --strict)",
     true},
    {{"run", "S", "--set", "clients[0].key_bits=16", "--set", "clients[0].key=\"business-hash\"",
      "--strict", "-q"},
     2,
     "$.clients[0].key_bits: has no effect with key 'business-hash': the client draws no random "
     "key",
     true},
    {{"check", "S", "--set", "server.idempotency.fencing=true", "--set",
      "server.idempotency.ttl_ms=0", "--strict", "-q"},
     2,
     "$.server.idempotency.fencing: has no effect: without lock_timeout_ms, ttl_ms or a failover",
     false},
    {{"sweep", "S", "--vary", VARY, "--seeds", "1", "--set",
      "clients[0].retry.honour_retry_after=true", "--strict"},
     2,
     "$.clients[0].retry.honour_retry_after: has no effect: no answer carries a Retry-After "
     "(server.queue is unbounded, so the server never sheds) (an error with --strict)",
     true},
    {{"validate", "S", "--set", "server.use_gateway=false", "--set", "gateway.fail=0.1",
      "--strict"},
     2,
     "@/d.json: $.gateway: has no effect: nothing charges through the gateway "
     "(server.use_gateway is false) (an error with --strict)",
     true},
    {{"validate", "S", "--set", "broker.ack_timeout_ms=100", "--strict"},
     2,
     "@/d.json: $.broker: has no effect: nothing publishes to the broker",
     true},
    {{"run", "S", "--strict", "--strict"}, 2, "option --strict given twice", true},
    /* Issue 24: explain, like every command, exits 2 when a budget stopped its run. */
    {{"explain", "S", "--op", "1", "--max-events", "50"},
     2,
     "@/d.json: at-most-once: stopped: event budget of 50 events exhausted (raise it with "
     "--max-events)",
     false},
    {{"explain", "S", "--why", "double", "--max-events", "50"},
     2,
     "at-most-once: stopped: event budget of 50 events exhausted",
     true},
#ifdef IDEMSIM_TEST_VIEW
    {{"view", "S", "--headless", "--png", "@x", "--png", "@y"},
     2,
     "option --png given twice",
     true},
    {{"view", "S", "--headless", "--png", "@x", "--at-ms", "1", "--at-ms", "2"},
     2,
     "option --at-ms given twice",
     true},
    {{"view", "S", "--headless", "--png", "@x", "--quit-after-ms", "5"},
     2,
     "--quit-after-ms is for the window",
     true},
    /* Issue 24, outputs: view lists every file it reads and writes in one registry. */
    {{"view", "S", "--headless", "--png", "@p.png", "--labels-json", "S"},
     2,
     "--labels-json @/d.json is the same file as the scenario @/d.json, which it would replace",
     true},
    {{"view", "S", "--headless", "--png", "@p.png", "--labels-json", "@hard.json"},
     2,
     "--labels-json @/hard.json is the same file as the scenario @/d.json",
     true},
    {{"view", "S", "--headless", "--png", "@p.png", "--labels-json", "@link.json"},
     2,
     "--labels-json @/link.json is the same file as the scenario @/d.json",
     true},
    {{"view", "S", "--headless", "--png", "@x", "--labels-json", "@dir/../x"},
     2,
     "--png @/x and --labels-json @/dir/../x are the same file",
     true},
    {{"view", "S", "--headless", "--png", "@frames/frame_000001.png", "--record", "@frames"},
     2,
     "--png @/frames/frame_000001.png is inside the --record directory @/frames",
     true},
    {{"view", "S", "--headless", "--png", "@dirlink/x.png", "--record", "@dir"},
     2,
     "--png @/dirlink/x.png is inside the --record directory @/dir",
     true},
    {{"view", "S", "--headless", "--png", "@new/../new/x.png", "--record", "@new/"},
     2,
     "--png @/new/../new/x.png is inside the --record directory @/new/",
     true},
    {{"view", "S", "--headless", "--png", "/dev/null", "--record", "@"},
     2,
     "scenario @/d.json is inside the --record directory @",
     true},
#endif
};

/* A shard header naming a metric no sweep writes, and one naming a metric twice. */
static void write_crafted_shards(void)
{
    static const char *const header = "# idemsim sweep shard 1/1\n"
                                      "# scenario: default\n"
                                      "# title: x\n"
                                      "# vary: network.default.loss=0:0.1:0.05\n"
                                      "# seeds: 1\n"
                                      "# modes: idempotent\n";
    char text[1024];
    snprintf(text, sizeof text, "%s# metrics: double,x\n", header);
    write_text(at("crafted.csv"), text);
    snprintf(text, sizeof text, "%s# metrics: lost lost\n", header);
    write_text(at("twice.csv"), text);
}

/* "@x" -> SCRATCH/x, "@" -> SCRATCH, "S" -> SCRATCH/d.json, into storage. */
static const char *expand(const char *text, char *storage, size_t size)
{
    if (strcmp(text, "S") == 0)
        snprintf(storage, size, "%s/d.json", test_scratch);
    else if (strcmp(text, "@") == 0)
        snprintf(storage, size, "%s", test_scratch);
    else if (text[0] == '@')
        snprintf(storage, size, "%s/%s", test_scratch, text + 1);
    else
        return text;
    return storage;
}

/* The message with every "@" replaced by the scratch directory. */
static void expand_message(const char *message, char *buffer, size_t size)
{
    buffer[0] = '\0';
    for (const char *c = message; *c != '\0'; c++) {
        size_t used = strlen(buffer);
        if (*c == '@')
            snprintf(buffer + used, size - used, "%s", test_scratch);
        else
            snprintf(buffer + used, size - used, "%c", *c);
    }
}

START_TEST(test_corpus_gives_each_case_its_exit_code_and_message)
{
    write_crafted_shards();
    size_t scenario_length = 0;
    char *scenario = test_cli_read_all(at("d.json"), &scenario_length);
    char out[512], err[512];
    test_cli_in_scratch(out, "out.txt");
    test_cli_in_scratch(err, "err.txt");
    for (size_t c = 0; c < sizeof corpus / sizeof corpus[0]; c++) {
        const Case *test = &corpus[c];
        char storage[24][512];
        const char *arguments[25] = {NULL};
        for (int i = 0; test->arguments[i] != NULL; i++)
            arguments[i] = expand(test->arguments[i], storage[i], sizeof storage[i]);
        int code = test_cli_run(arguments, out, err);
        char *printed = test_cli_read_all(err, NULL);
        char *shown = test_cli_read_all(out, NULL);
        char expected[2048];
        expand_message(test->message, expected, sizeof expected);
        ck_assert_msg(code == test->exit_code && strstr(printed, expected) != NULL,
                      "case %zu (%s %s): expected exit %d and '%s', got exit %d and:\n%s", c,
                      test->arguments[0], test->arguments[1], test->exit_code, expected, code,
                      printed);
        ck_assert_msg(!test->nothing_ran || shown[0] == '\0', "case %zu ran:\n%s", c, shown);
        free(printed);
        free(shown);
        assert_no_temporary();
        ck_assert_int_ne(access(at("x"), F_OK), 0);
        size_t length = 0;
        char *after = test_cli_read_all(at("d.json"), &length);
        ck_assert_msg(length == scenario_length && memcmp(after, scenario, length) == 0,
                      "case %zu changed the scenario", c);
        free(after);
    }
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ starting a child */

#define CLOSED (-2)

typedef struct {
    const char *const *arguments;
    int out;                /* descriptor for its standard output; -1: /dev/null; CLOSED */
    const char *err_path;   /* its standard error; NULL: /dev/null */
    const char *plant_link; /* with plant_target: a symlink made as PATH.tmp.PID first */
    const char *plant_target;
} Start;

static pid_t start(const Start *start)
{
    const char *argv[64] = {IDEMSIM_BINARY};
    for (int i = 0; start->arguments[i] != NULL; i++) {
        ck_assert_int_lt(i, 62);
        argv[i + 1] = start->arguments[i];
    }
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid != 0)
        return pid;
    redirect(STDERR_FILENO, start->err_path); /* first: it may leave a descriptor open */
    if (start->out >= 0)
        dup2(start->out, STDOUT_FILENO);
    else if (start->out == CLOSED)
        close(STDOUT_FILENO);
    else
        redirect(STDOUT_FILENO, NULL);
    /* No core file from SIGQUIT or SIGABRT in the source directory. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    /* Signals as a shell starts a program: none blocked, none ignored. */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    static const int used[] = {SIGHUP, SIGINT, SIGTERM, SIGABRT, SIGPIPE};
    for (size_t i = 0; i < sizeof used / sizeof used[0]; i++)
        signal(used[i], SIG_DFL);
    if (start->plant_link != NULL) {
        /* The name the old code used, PATH.tmp.PID: exec keeps the pid. */
        char planted[600];
        snprintf(planted, sizeof planted, "%s.tmp.%ld", start->plant_link, (long)getpid());
        if (symlink(start->plant_target, planted) != 0)
            _exit(126);
    }
    execv(IDEMSIM_BINARY, (char *const *)argv);
    _exit(127);
}

static int finish(pid_t pid)
{
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return status;
}

static void assert_exit(int status, int code, const char *err_path)
{
    char *printed = err_path != NULL ? test_cli_read_all(err_path, NULL) : NULL;
    ck_assert_msg(
        WIFEXITED(status) && WEXITSTATUS(status) == code,
        "expected exit %d, got %s %d; stderr:\n%s", code, WIFEXITED(status) ? "exit" : "signal",
        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), printed ? printed : "");
    free(printed);
}

static void assert_printed(const char *path, const char *expected)
{
    char *printed = test_cli_read_all(path, NULL);
    ck_assert_ptr_nonnull(printed);
    ck_assert_msg(strstr(printed, expected) != NULL, "expected '%s' in:\n%s", expected, printed);
    free(printed);
}

/* ------------------------------------------------------------------ no file destroyed */

START_TEST(test_an_output_symlink_is_replaced_not_written_through)
{
    char victim[512], output[512];
    test_cli_in_scratch(victim, "victim.txt");
    test_cli_in_scratch(output, "report.json");
    write_text(victim, "precious\n");
    ck_assert_int_eq(symlink("victim.txt", output), 0);
    const char *arguments[] = {"run", SCENARIO, "--json", output, "-q", NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
    char *kept = test_cli_read_all(victim, NULL);
    ck_assert_str_eq(kept, "precious\n");
    free(kept);
    struct stat info;
    ck_assert_int_eq(lstat(output, &info), 0);
    ck_assert(S_ISREG(info.st_mode));
    assert_printed(output, "\"scenario\": \"default\"");
    assert_no_temporary();
}
END_TEST

START_TEST(test_a_replaced_file_keeps_its_mode_and_a_new_one_follows_the_umask)
{
    char secret[512], fresh[512];
    test_cli_in_scratch(secret, "secret.json");
    test_cli_in_scratch(fresh, "fresh.json");
    write_text(secret, "old\n");
    ck_assert_int_eq(chmod(secret, 0600), 0);
    const char *replace[] = {"run", SCENARIO, "--json", secret, "-q", NULL};
    ck_assert_int_eq(test_cli_run(replace, NULL, NULL), 0);
    struct stat info;
    ck_assert_int_eq(stat(secret, &info), 0);
    ck_assert_uint_eq(info.st_mode & 07777, 0600);
    assert_printed(secret, "\"scenario\": \"default\"");
    mode_t mask = umask(022);
    umask(mask);
    const char *create[] = {"run", SCENARIO, "--json", fresh, "-q", NULL};
    ck_assert_int_eq(test_cli_run(create, NULL, NULL), 0);
    ck_assert_int_eq(stat(fresh, &info), 0);
    ck_assert_uint_eq(info.st_mode & 07777, 0666 & ~mask);
}
END_TEST

START_TEST(test_a_symlink_planted_at_the_old_temporary_name_is_never_followed)
{
    char victim[512], output[512], err[512];
    test_cli_in_scratch(victim, "victim.txt");
    test_cli_in_scratch(output, "report.json");
    test_cli_in_scratch(err, "err.txt");
    write_text(victim, "precious\n");
    const char *arguments[] = {"run", SCENARIO, "--json", output, "-q", NULL};
    Start how = {arguments, -1, err, output, victim};
    assert_exit(finish(start(&how)), 0, err);
    char *kept = test_cli_read_all(victim, NULL);
    ck_assert_str_eq(kept, "precious\n");
    free(kept);
    assert_printed(output, "\"scenario\": \"default\"");
}
END_TEST

/* ------------------------------------------------------------------ signals */

/* run with --json and --csv into the scratch directory and --trace into a FIFO this test
 * reads: once the first trace bytes arrive, both temporaries exist (they are opened before
 * the trace) and the run cannot end while the test does not read. Then signal_number. */
static void signal_during_run_leaves_nothing(int signal_number)
{
    char json[512], csv[512], fifo[512], err[512];
    test_cli_in_scratch(json, "report.json");
    test_cli_in_scratch(csv, "report.csv");
    test_cli_in_scratch(fifo, "trace.fifo");
    test_cli_in_scratch(err, "err.txt");
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    const char *arguments[] = {"run", SCENARIO,  "--json", json, "--csv",
                               csv,   "--trace", fifo,     "-q", NULL};
    Start how = {arguments, -1, err, NULL, NULL};
    pid_t pid = start(&how);
    int trace = open(fifo, O_RDONLY);
    ck_assert_int_ge(trace, 0);
    char byte;
    ck_assert_int_eq(read(trace, &byte, 1), 1);
    char names[2048];
    temporaries(names, sizeof names);
    ck_assert_msg(strstr(names, "report.json.tmp.") && strstr(names, "report.csv.tmp."),
                  "temporaries: %s", names);
    char predictable[64];
    snprintf(predictable, sizeof predictable, ".tmp.%ld ", (long)pid);
    ck_assert_msg(strstr(names, predictable) == NULL, "a predictable name: %s", names);
    ck_assert_int_eq(kill(pid, signal_number), 0);
    int status = finish(pid);
    close(trace);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == signal_number,
                  "expected death by signal %d, got status %d", signal_number, status);
    assert_no_temporary();
    ck_assert_int_ne(access(json, F_OK), 0);
    ck_assert_int_ne(access(csv, F_OK), 0);
}

START_TEST(test_sigterm_during_a_run_removes_the_temporaries)
{
    signal_during_run_leaves_nothing(SIGTERM);
}
END_TEST

START_TEST(test_sighup_during_a_run_removes_the_temporaries)
{
    signal_during_run_leaves_nothing(SIGHUP);
}
END_TEST

START_TEST(test_sigint_during_a_run_removes_the_temporaries)
{
    signal_during_run_leaves_nothing(SIGINT);
}
END_TEST

START_TEST(test_sigabrt_as_an_internal_error_removes_the_temporaries)
{
    signal_during_run_leaves_nothing(SIGABRT);
}
END_TEST

/* check with --junit over many copies of a quick scenario, its standard output a pipe
 * shrunk to one page: once the first verdict arrives the JUnit temporary exists, and the
 * check cannot finish while the test does not read. SIGHUP then removes it. */
START_TEST(test_sighup_during_check_removes_the_junit_temporary)
{
    char junit[512], copy[512];
    test_cli_in_scratch(junit, "check.xml");
    for (int i = 0; i < QUICK_COPIES; i++) {
        char name[64];
        snprintf(name, sizeof name, "dir/quick_%03d.json", i);
        copy_file(QUICK, test_cli_in_scratch(copy, name));
    }
    int out[2];
    ck_assert_int_eq(pipe(out), 0);
    ck_assert_int_ge(fcntl(out[0], F_SETPIPE_SZ, 4096), 4096);
    const char *arguments[] = {"check", at("dir"), "--junit", junit, NULL};
    Start how = {arguments, out[1], NULL, NULL, NULL};
    pid_t pid = start(&how);
    close(out[1]);
    char first[16];
    ck_assert_int_eq(read(out[0], first, 4), 4);
    ck_assert_int_eq(memcmp(first, "PASS", 4), 0);
    char names[2048];
    temporaries(names, sizeof names);
    ck_assert_msg(strstr(names, "check.xml.tmp.") != NULL, "temporaries: %s", names);
    ck_assert_int_eq(kill(pid, SIGHUP), 0);
    int status = finish(pid);
    close(out[0]);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP);
    assert_no_temporary();
    ck_assert_int_ne(access(junit, F_OK), 0);
}
END_TEST

/* ------------------------------------------------------------------ standard output */

/* `run ... | true`: the table meets a closed pipe. Exit 2 with the reason, not a silent
 * SIGPIPE; the report file is whole, no temporary left. */
START_TEST(test_a_closed_pipe_on_standard_output_is_an_error_with_its_reason)
{
    char json[512], err[512];
    test_cli_in_scratch(json, "report.json");
    test_cli_in_scratch(err, "err.txt");
    int out[2];
    ck_assert_int_eq(pipe(out), 0);
    close(out[0]);
    const char *arguments[] = {"run", SCENARIO, "--json", json, NULL};
    Start how = {arguments, out[1], err, NULL, NULL};
    pid_t pid = start(&how);
    close(out[1]);
    assert_exit(finish(pid), 2, err);
    assert_printed(err, "idemsim: standard output: cannot write: Broken pipe");
    assert_printed(json, "\"scenario\": \"default\"");
    assert_no_temporary();
}
END_TEST

/* Started with standard output closed: the table is refused before the run, and the
 * --json file never takes descriptor 1 (the table would have been written into it). */
START_TEST(test_a_closed_standard_output_is_refused_and_never_reused)
{
    char json[512], err[512];
    test_cli_in_scratch(json, "report.json");
    test_cli_in_scratch(err, "err.txt");
    const char *with_table[] = {"run", SCENARIO, "--json", json, NULL};
    Start how = {with_table, CLOSED, err, NULL, NULL};
    assert_exit(finish(start(&how)), 2, err);
    assert_printed(err, "idemsim: standard output: cannot write the table: Bad file descriptor");
    ck_assert_int_ne(access(json, F_OK), 0);
    const char *quiet[] = {"run", SCENARIO, "--json", json, "-q", NULL};
    how.arguments = quiet;
    assert_exit(finish(start(&how)), 0, err);
    char *report = test_cli_read_all(json, NULL);
    ck_assert_msg(strncmp(report, "{", 1) == 0 && strstr(report, "seed 42") == NULL,
                  "not the JSON report alone:\n%.200s", report);
    free(report);
    const char *sweep[] = {"sweep", SCENARIO, "--vary", VARY, "--seeds", "1", NULL};
    how.arguments = sweep;
    assert_exit(finish(start(&how)), 2, err);
    assert_printed(err, "idemsim: standard output: cannot write the CSV: Bad file descriptor");
    assert_no_temporary();
}
END_TEST

/* A reader of the trace FIFO that goes away: the trace fails with EPIPE, named. */
START_TEST(test_a_trace_reader_that_goes_away_is_a_named_error)
{
    char fifo[512], err[512];
    test_cli_in_scratch(fifo, "trace.fifo");
    test_cli_in_scratch(err, "err.txt");
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    const char *arguments[] = {"run", SCENARIO, "--trace", fifo, "-q", NULL};
    Start how = {arguments, -1, err, NULL, NULL};
    pid_t pid = start(&how);
    int trace = open(fifo, O_RDONLY);
    char byte;
    ck_assert_int_eq(read(trace, &byte, 1), 1);
    close(trace);
    assert_exit(finish(pid), 2, err);
    assert_printed(err, "trace.fifo: cannot write: Broken pipe");
}
END_TEST

START_TEST(test_a_full_standard_output_fails_every_subcommand)
{
    char shard[512], err[512];
    test_cli_in_scratch(shard, "shard.csv");
    test_cli_in_scratch(err, "err.txt");
    const char *make_shard[] = {"sweep",   SCENARIO, "--vary", VARY,  "--seeds", "1",
                                "--shard", "1/1",    "--csv",  shard, "-q",      NULL};
    ck_assert_int_eq(test_cli_run(make_shard, NULL, NULL), 0);
    const char *run[] = {"run", SCENARIO, NULL};
    const char *check[] = {"check", QUICK, NULL};
    const char *validate[] = {"validate", SCENARIO, NULL};
    const char *sweep[] = {"sweep", SCENARIO, "--vary", VARY, "--seeds", "1", "-q", NULL};
    const char *merge[] = {"merge", shard, NULL};
    const char *help[] = {"help", "run", NULL};
    const char *const *commands[] = {run, check, validate, sweep, merge, help};
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
        ck_assert_msg(test_cli_run(commands[c], "/dev/full", err) == 2, "%s exited 0",
                      commands[c][0]);
        assert_printed(err, "idemsim: standard output: cannot write: No space left on device");
    }
}
END_TEST

/* ------------------------------------------------------------------ late failures */

START_TEST(test_a_sweep_stops_at_its_first_run_stopped_by_a_budget)
{
    char csv[512], err[512];
    test_cli_in_scratch(csv, "never.csv");
    test_cli_in_scratch(err, "err.txt");
    const char *arguments[] = {"sweep",     SCENARIO, "--vary", VARY, "--seeds",      "4",
                               "--threads", "1",      "--csv",  csv,  "--max-events", "100",
                               NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, err), 2);
    assert_printed(err, "so the sweep stopped at run 1 of 12 and wrote nothing");
    assert_printed(err, "the first: point 0, seed 42, at-most-once: ");
    ck_assert_int_ne(access(csv, F_OK), 0);
    assert_no_temporary();
}
END_TEST

/* ------------------------------------------------------------------ smaller items */

START_TEST(test_rerun_line_quotes_a_path_with_spaces_and_quotes)
{
    char path[512], out[512];
    test_cli_in_scratch(path, "my dir");
    ck_assert_int_eq(mkdir(path, 0755), 0);
    test_cli_in_scratch(path, "my dir/it's.json");
    copy_file(SCENARIO, path);
    test_cli_in_scratch(out, "out.txt");
    const char *arguments[] = {"check", path, "--set", "expect.idempotent.double={\"min\": 1}",
                               NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, NULL), 1);
    char expected[1200];
    snprintf(expected, sizeof expected,
             "rerun: %s run '%s/my dir/it'\\''s.json' --seed 42 --set "
             "'expect.idempotent.double={\"min\": 1}'\n",
             IDEMSIM_BINARY, test_scratch);
    assert_printed(out, expected);
}
END_TEST

START_TEST(test_control_characters_of_a_title_are_escaped_on_the_terminal)
{
    char out[512];
    test_cli_in_scratch(out, "out.txt");
    const char *arguments[] = {"run",        SCENARIO, "--mode",
                               "idempotent", "--set",  "title=\"\\u001b[31mred\\u009b2J\"",
                               NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, NULL), 0);
    assert_printed(out, "default: \\x1b[31mred\\u009b2J  (seed 42");
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_ptr_null(strchr(printed, '\033'));
    ck_assert_ptr_null(strstr(printed, "\xc2\x9b"));
    free(printed);
}
END_TEST

START_TEST(test_sweep_grid_keeps_neighbouring_large_seeds_apart)
{
    char shard[512];
    test_cli_in_scratch(shard, "seeds.csv");
    const char *arguments[] = {
        "sweep",   SCENARIO,     "--vary",   "seed=9007199254740000:9007199254740005:1",
        "--seeds", "1",          "--metric", "attempts",
        "--mode",  "idempotent", "--shard",  "1/1",
        "--csv",   shard,        "-q",       NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, NULL), 0);
    for (int k = 0; k <= 5; k++) {
        char row[128];
        snprintf(row, sizeof row, "\n%d,0,900719925474000%d,900719925474000%d,idempotent,", k, k,
                 k);
        assert_printed(shard, row);
    }
}
END_TEST

START_TEST(test_view_refuses_the_same_mode_twice)
{
    char err[512], png[512];
    test_cli_in_scratch(err, "err.txt");
    test_cli_in_scratch(png, "frame.png");
    const char *arguments[] = {"view",       SCENARIO,     "--mode", "idempotent", "--mode",
                               "idempotent", "--headless", "--png",  png,          NULL};
    ck_assert_int_eq(test_cli_run(arguments, NULL, err), 2);
    char *printed = test_cli_read_all(err, NULL);
    ck_assert_msg(strstr(printed, "--mode idempotent given twice") != NULL ||
                      strstr(printed, "this build has no view") != NULL,
                  "%s", printed);
    free(printed);
    ck_assert_int_ne(access(png, F_OK), 0);
}
END_TEST

static Suite *outputs_suite(void)
{
    Suite *suite = suite_create("outputs");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_an_output_symlink_is_replaced_not_written_through);
    tcase_add_test(core, test_a_replaced_file_keeps_its_mode_and_a_new_one_follows_the_umask);
    tcase_add_test(core, test_a_symlink_planted_at_the_old_temporary_name_is_never_followed);
    tcase_add_test(core, test_sigterm_during_a_run_removes_the_temporaries);
    tcase_add_test(core, test_sighup_during_a_run_removes_the_temporaries);
    tcase_add_test(core, test_sigint_during_a_run_removes_the_temporaries);
    tcase_add_test(core, test_sigabrt_as_an_internal_error_removes_the_temporaries);
    tcase_add_test(core, test_sighup_during_check_removes_the_junit_temporary);
    tcase_add_test(core, test_a_closed_pipe_on_standard_output_is_an_error_with_its_reason);
    tcase_add_test(core, test_a_trace_reader_that_goes_away_is_a_named_error);
    tcase_add_test(core, test_a_closed_standard_output_is_refused_and_never_reused);
    tcase_add_test(core, test_rerun_line_quotes_a_path_with_spaces_and_quotes);
    tcase_add_test(core, test_control_characters_of_a_title_are_escaped_on_the_terminal);
    tcase_add_test(core, test_sweep_grid_keeps_neighbouring_large_seeds_apart);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_checked_fixture(limits, setup, teardown);
    tcase_set_timeout(limits, 300);
    tcase_add_test(limits, test_corpus_gives_each_case_its_exit_code_and_message);
    tcase_add_test(limits, test_a_full_standard_output_fails_every_subcommand);
    tcase_add_test(limits, test_a_sweep_stops_at_its_first_run_stopped_by_a_budget);
    tcase_add_test(limits, test_view_refuses_the_same_mode_twice);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(outputs_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
