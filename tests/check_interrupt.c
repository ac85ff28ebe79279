/* Ctrl-C during a long check or sweep (issue 7): the program stops between two runs, says
 * what finished, exits 130, and leaves neither a half-written output file nor a
 * PATH.tmp.PID behind. Each test starts idemsim in the background, waits for output that
 * proves the work is under way, and only then sends SIGINT: check's first PASS line, which
 * it prints to a pipe, or sweep's progress line, which it prints only to a terminal, so a
 * sweep's standard error is a pseudo-terminal. Nothing sleeps: every wait is a read,
 * bounded by a deadline. */
#define _XOPEN_SOURCE 700 /* posix_openpt, grantpt, unlockpt, ptsname */

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "scenario.h"
#include "test_cli.h"

/* check: a quick scenario first, whose PASS lines show that the check is under way, then
 * copies of the slowest one, about 0.3 s each (30 s in all, far more under the
 * sanitizers), so the signal lands long before the end. */
#define QUICK "scenarios/09_in_progress_202.json"
#define SLOW "scenarios/03_broker_slow_consumers.json"
#define SLOW_COPIES 100
#define CHECK_SEEDS "20"

/* sweep: 7 points x 5000 seeds = 35000 runs of every mode, about 45 s on two threads. */
#define SWEEP_SCENARIO "scenarios/default.json"
#define SWEEP_VARY "network.default.loss=0:0.3:0.05"
#define SWEEP_SEEDS "5000"
#define SWEEP_RUNS 35000

/* Generous, for a sanitizer build on a busy machine; a passing test never waits this long. */
#define READY_WITHIN_MS 60000
#define EXIT_WITHIN_MS 30000

#define CHILD_ARGUMENTS_MAX 128

/* ------------------------------------------------------------------ reading a child */

typedef struct {
    char *bytes; /* NUL-terminated */
    size_t length;
    size_t capacity;
} Text;

typedef struct {
    pid_t pid;
    int out;      /* its standard output, a pipe */
    int err;      /* its standard error: a pipe, or the master side of a pseudo-terminal */
    int terminal; /* the pseudo-terminal's other side, or -1 */
} Child;

static int64_t now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void text_release(Text *text)
{
    free(text->bytes);
    *text = (Text){0};
}

/* Room for 4096 more bytes and the NUL; an empty text becomes "". */
static void text_reserve(Text *text)
{
    if (text->capacity - text->length >= 4097)
        return;
    text->capacity = text->capacity ? text->capacity * 2 : 8192;
    text->bytes = realloc(text->bytes, text->capacity);
    ck_assert_ptr_nonnull(text->bytes);
    text->bytes[text->length] = '\0';
}

/* Appends what fd has to text, waiting for it until deadline_ms. False at end of file, on
 * an error, or when the deadline has passed. */
static bool read_more(int fd, Text *text, int64_t deadline_ms)
{
    text_reserve(text);
    int64_t left_ms = deadline_ms - now_ms();
    if (left_ms <= 0)
        return false;
    struct pollfd readable = {.fd = fd, .events = POLLIN};
    int polled = poll(&readable, 1, (int)left_ms);
    if (polled < 0)
        return errno == EINTR;
    if (polled == 0)
        return false;
    ssize_t got = read(fd, text->bytes + text->length, 4096);
    if (got < 0)
        return errno == EINTR;
    if (got == 0)
        return false;
    text->length += (size_t)got;
    text->bytes[text->length] = '\0';
    return true;
}

/* Reads fd into text until ready(text) holds; false if the child stopped writing first, or
 * after READY_WITHIN_MS. */
static bool wait_until(int fd, Text *text, bool (*ready)(const char *text))
{
    int64_t deadline_ms = now_ms() + READY_WITHIN_MS;
    text_reserve(text);
    while (!ready(text->bytes)) {
        if (!read_more(fd, text, deadline_ms))
            return false;
    }
    return true;
}

static void keep_from_child(int fd)
{
    ck_assert_int_eq(fcntl(fd, F_SETFD, FD_CLOEXEC), 0);
}

/* The master side; *terminal gets the side the child writes to. The parent keeps that side
 * open too, so the master never reads EIO and the last bytes stay readable after the child
 * exits. Output processing is off: "\n" arrives as "\n", not "\r\n". */
static int open_terminal(int *terminal)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    ck_assert_int_ge(master, 0);
    ck_assert_int_eq(grantpt(master), 0);
    ck_assert_int_eq(unlockpt(master), 0);
    *terminal = open(ptsname(master), O_RDWR | O_NOCTTY);
    ck_assert_int_ge(*terminal, 0);
    struct termios mode;
    ck_assert_int_eq(tcgetattr(*terminal, &mode), 0);
    mode.c_oflag &= ~(tcflag_t)OPOST;
    ck_assert_int_eq(tcsetattr(*terminal, TCSANOW, &mode), 0);
    return master;
}

/* Starts idemsim with arguments (NULL-terminated) and returns at once: standard input from
 * /dev/null, standard output to a pipe, standard error to a pipe or, with terminal, to a
 * pseudo-terminal, where the program shows the progress it shows a person. */
static Child child_start(const char *const *arguments, bool terminal)
{
    Child child = {.terminal = -1};
    int out[2], err[2];
    ck_assert_int_eq(pipe(out), 0);
    if (terminal) {
        err[0] = open_terminal(&err[1]);
        child.terminal = err[1];
    } else {
        ck_assert_int_eq(pipe(err), 0);
    }
    for (int i = 0; i < 2; i++) {
        keep_from_child(out[i]);
        keep_from_child(err[i]);
    }
    const char *argv[CHILD_ARGUMENTS_MAX] = {IDEMSIM_BINARY};
    for (int i = 0; arguments[i] != NULL; i++) {
        ck_assert_int_lt(i, CHILD_ARGUMENTS_MAX - 2);
        argv[i + 1] = arguments[i];
    }
    child.pid = fork();
    ck_assert_int_ge(child.pid, 0);
    if (child.pid == 0) {
        int input = open("/dev/null", O_RDONLY);
        dup2(input, STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        /* An ignored or blocked SIGINT would survive exec and hide what is tested. */
        signal(SIGINT, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execv(IDEMSIM_BINARY, (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    if (!terminal)
        close(err[1]);
    child.out = out[0];
    child.err = err[0];
    return child;
}

static bool ends_with_newline(const char *text)
{
    size_t length = strlen(text);
    return length > 0 && text[length - 1] == '\n';
}

/* Sends SIGINT, as Ctrl-C does, and collects the rest of what the child prints: standard
 * output to its end, then standard error to its end or, on a terminal, up to its last
 * newline (progress lines end in "\r", never "\n"). Returns the status from waitpid. */
static int child_interrupt(Child *child, Text *out, Text *err)
{
    ck_assert_int_eq(kill(child->pid, SIGINT), 0);
    int64_t deadline_ms = now_ms() + EXIT_WITHIN_MS;
    while (read_more(child->out, out, deadline_ms))
        continue;
    if (now_ms() >= deadline_ms) {
        kill(child->pid, SIGKILL);
        waitpid(child->pid, NULL, 0);
        ck_abort_msg("idemsim did not stop within %d ms of SIGINT", EXIT_WITHIN_MS);
    }
    if (child->terminal < 0) {
        while (read_more(child->err, err, deadline_ms))
            continue;
    }
    int status = 0;
    ck_assert_int_eq(waitpid(child->pid, &status, 0), child->pid);
    if (child->terminal >= 0) {
        text_reserve(err);
        while (!ends_with_newline(err->bytes) && read_more(child->err, err, deadline_ms))
            continue;
        close(child->terminal);
    }
    close(child->out);
    close(child->err);
    text_reserve(out);
    text_reserve(err);
    return status;
}

static void assert_exit_130(int status, const Text *out, const Text *err)
{
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGINT,
                  "expected exit 130, got %s %d\nstdout:\n%s\nstderr:\n%s",
                  WIFEXITED(status) ? "exit" : "signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), out->bytes,
                  err->bytes);
}

/* ------------------------------------------------------------------ what is left behind */

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* The output file's temporary name (report.h: PATH.tmp.PID) for that child. */
static bool temporary_exists(const char *path, pid_t pid)
{
    char temporary[600];
    snprintf(temporary, sizeof temporary, "%s.tmp.%ld", path, (long)pid);
    return exists(temporary);
}

/* The names in the scratch directory, each followed by a space; "" when it is empty. */
static void scratch_names(char *names, size_t size)
{
    DIR *directory = opendir(test_scratch);
    ck_assert_ptr_nonnull(directory);
    names[0] = '\0';
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
            snprintf(names + strlen(names), size - strlen(names), "%s ", entry->d_name);
    }
    closedir(directory);
}

/* ------------------------------------------------------------------ check's output */

static int count_lines_starting(const char *text, const char *prefix)
{
    int count = 0;
    for (const char *line = text; *line != '\0';) {
        count += strncmp(line, prefix, strlen(prefix)) == 0;
        const char *end = strchr(line, '\n');
        if (end == NULL)
            break;
        line = end + 1;
    }
    return count;
}

static bool shows_a_verdict(const char *text)
{
    return count_lines_starting(text, "PASS  ") + count_lines_starting(text, "FAIL  ") > 0 &&
           strchr(text, '\n') != NULL;
}

static int expectation_count(const char *path)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(scenario != NULL && errors != NULL);
    ck_assert_msg(scenario_load_file(path, NULL, 0, scenario, errors), "%s does not load", path);
    int count = (int)scenario->expectation_count;
    free(scenario);
    free(errors);
    ck_assert_int_gt(count, 0);
    return count;
}

/* ------------------------------------------------------------------ sweep's progress */

/* The largest count of finished runs shown by the progress lines "sweep: DONE/TOTAL runs"
 * (a line still being read is not counted), or -1; *total gets the TOTAL shown. */
static long progress_done(const char *text, long *total)
{
    long done_max = -1;
    for (const char *at = strstr(text, "\rsweep: "); at != NULL; at = strstr(at + 1, "\rsweep: ")) {
        unsigned long done = 0, runs = 0;
        int used = 0;
        if (sscanf(at, "\rsweep: %lu/%lu runs %n", &done, &runs, &used) == 2 && used > 0) {
            done_max = (long)done > done_max ? (long)done : done_max;
            *total = (long)runs;
        }
    }
    return done_max;
}

static bool shows_a_finished_run(const char *text)
{
    long total = 0;
    return progress_done(text, &total) >= 1;
}

/* Starts the long sweep writing csv and svg, waits until its progress line shows a finished
 * run, interrupts it, and checks what it says: exit 130, nothing on standard output, and
 * "N of TOTAL runs finished; nothing written", N no less than the progress showed. */
static pid_t interrupt_sweep(const char *csv, const char *svg)
{
    const char *arguments[] = {
        "sweep", SWEEP_SCENARIO, "--vary", SWEEP_VARY, "--seeds", SWEEP_SEEDS, "--threads",
        "2",     "--csv",        csv,      "--svg",    svg,       NULL};
    Child child = child_start(arguments, true);
    Text out = {0}, err = {0};
    bool ready = wait_until(child.err, &err, shows_a_finished_run);
    if (!ready)
        kill(child.pid, SIGKILL);
    ck_assert_msg(ready, "no progress line with a finished run came:\n%s", err.bytes);
    long total = 0;
    long shown = progress_done(err.bytes, &total);
    ck_assert_int_eq(total, SWEEP_RUNS);
    int status = child_interrupt(&child, &out, &err);
    assert_exit_130(status, &out, &err);
    ck_assert_str_eq(out.bytes, "");
    const char *prefix = "idemsim: interrupted by Ctrl-C: ";
    const char *notice = strstr(err.bytes, prefix);
    ck_assert_msg(notice != NULL, "no interrupt notice in:\n%s", err.bytes);
    long done = strtol(notice + strlen(prefix), NULL, 10);
    ck_assert_int_ge(done, shown); /* the runs finished before the signal count */
    ck_assert_int_lt(done, SWEEP_RUNS);
    char expected[400];
    snprintf(expected, sizeof expected,
             "%s%ld of %d runs finished; nothing written (a sweep with holes would be a wrong "
             "result; --shard splits a long one)\n",
             prefix, done, SWEEP_RUNS);
    ck_assert_str_eq(notice, expected); /* and it is the last thing printed */
    text_release(&out);
    text_release(&err);
    return child.pid;
}

/* ------------------------------------------------------------------ Core */

static void setup(void)
{
    test_cli_make_scratch("interrupt");
}

static void teardown(void)
{
    test_cli_remove_scratch();
}

START_TEST(test_interrupted_check_reports_the_finished_scenarios_and_writes_no_junit)
{
    char junit[512];
    test_cli_in_scratch(junit, "check.xml");
    const char *arguments[SLOW_COPIES + 8] = {"check",   "--seeds", CHECK_SEEDS,
                                              "--junit", junit,     QUICK};
    for (int i = 0; i < SLOW_COPIES; i++)
        arguments[6 + i] = SLOW;
    Child child = child_start(arguments, false);
    Text out = {0}, err = {0};
    bool ready = wait_until(child.out, &out, shows_a_verdict);
    if (!ready)
        kill(child.pid, SIGKILL);
    ck_assert_msg(ready, "no PASS or FAIL line came:\n%s", out.bytes);
    int status = child_interrupt(&child, &out, &err);
    assert_exit_130(status, &out, &err);

    /* Only whole scenarios print verdicts: the lines are the quick scenario's expectations
     * and those of some whole copies of the slow one. */
    int passed = count_lines_starting(out.bytes, "PASS  ");
    int failed = count_lines_starting(out.bytes, "FAIL  ");
    int quick = expectation_count(QUICK), slow = expectation_count(SLOW);
    int verdicts = passed + failed;
    ck_assert_msg(verdicts >= quick && (verdicts - quick) % slow == 0,
                  "%d verdicts are not %d + k * %d:\n%s", verdicts, quick, slow, out.bytes);
    int finished = 1 + (verdicts - quick) / slow;
    int total = 1 + SLOW_COPIES;
    ck_assert_int_lt(finished, total);

    /* The last line says what finished, in the numbers the lines above show. */
    char summary[200];
    snprintf(summary, sizeof summary,
             "\ninterrupted: %d passed, %d failed in the %d of %d scenarios that finished\n",
             passed, failed, finished, total);
    ck_assert_uint_ge(out.length, strlen(summary));
    ck_assert_str_eq(out.bytes + out.length - strlen(summary), summary);
    char notice[200];
    snprintf(notice, sizeof notice, "idemsim: interrupted by Ctrl-C after %d of %d scenarios\n",
             finished, total);
    ck_assert_str_eq(err.bytes, notice);

    /* The JUnit report is written only when the check ends: neither it nor its temporary. */
    ck_assert(!exists(junit));
    ck_assert(!temporary_exists(junit, child.pid));
    char names[1024];
    scratch_names(names, sizeof names);
    ck_assert_str_eq(names, "");
    text_release(&out);
    text_release(&err);
}
END_TEST

START_TEST(test_interrupted_sweep_reports_the_finished_runs_and_writes_nothing)
{
    char csv[512], svg[512];
    test_cli_in_scratch(csv, "loss.csv");
    test_cli_in_scratch(svg, "loss.svg");
    pid_t pid = interrupt_sweep(csv, svg);
    ck_assert(!exists(csv));
    ck_assert(!exists(svg));
    ck_assert(!temporary_exists(csv, pid));
    ck_assert(!temporary_exists(svg, pid));
    char names[1024];
    scratch_names(names, sizeof names);
    ck_assert_str_eq(names, "");
}
END_TEST

/* ------------------------------------------------------------------ Limits */

START_TEST(test_interrupted_sweep_leaves_an_earlier_csv_as_it_was)
{
    char csv[512], svg[512];
    test_cli_in_scratch(csv, "loss.csv");
    test_cli_in_scratch(svg, "loss.svg");
    const char *earlier[] = {"sweep", SWEEP_SCENARIO, "--vary", SWEEP_VARY, "--seeds",
                             "2",     "--csv",        csv,      NULL};
    ck_assert_int_eq(test_cli_run(earlier, NULL, NULL), 0);
    size_t before_length = 0;
    char *before = test_cli_read_all(csv, &before_length);
    ck_assert_ptr_nonnull(before);
    ck_assert_uint_gt(before_length, 0);

    pid_t pid = interrupt_sweep(csv, svg);
    size_t after_length = 0;
    char *after = test_cli_read_all(csv, &after_length);
    ck_assert_ptr_nonnull(after);
    ck_assert_uint_eq(after_length, before_length);
    ck_assert(memcmp(after, before, before_length) == 0);
    ck_assert(!exists(svg));
    ck_assert(!temporary_exists(csv, pid));
    ck_assert(!temporary_exists(svg, pid));
    char names[1024];
    scratch_names(names, sizeof names);
    ck_assert_str_eq(names, "loss.csv ");
    free(before);
    free(after);
}
END_TEST

static Suite *interrupt_suite(void)
{
    Suite *suite = suite_create("interrupt");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_interrupted_check_reports_the_finished_scenarios_and_writes_no_junit);
    tcase_add_test(core, test_interrupted_sweep_reports_the_finished_runs_and_writes_nothing);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_checked_fixture(limits, setup, teardown);
    tcase_set_timeout(limits, 120);
    tcase_add_test(limits, test_interrupted_sweep_leaves_an_earlier_csv_as_it_was);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(interrupt_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
