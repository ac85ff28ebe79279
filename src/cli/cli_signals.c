/* Signals: whatever ends the program removes the output temporaries first. Ctrl-C in a
 * long check or sweep is gentler: the first one asks the command to stop between runs and
 * say what finished; a second one ends it at once, temporaries removed all the same. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

volatile sig_atomic_t cli_interrupted;

/* Removes the temporaries, then ends the program as the signal itself would, so the
 * parent sees the true cause (130 for Ctrl-C, 143 for a kill). */
static void on_fatal_signal(int signal_number)
{
    output_file_remove_temporaries();
    signal(signal_number, SIG_DFL);
    raise(signal_number); /* delivered when the handler returns: the signal is blocked now */
}

static void on_interrupt(int signal_number)
{
    if (cli_interrupted)
        on_fatal_signal(signal_number);
    else
        cli_interrupted = 1;
}

/* A signal the program was started with ignored stays ignored: nohup's SIGHUP, or the
 * SIGINT a shell ignores for a background job. */
static void catch_signal(int signal_number, void (*handler)(int))
{
    struct sigaction current;
    if (sigaction(signal_number, NULL, &current) == 0 && current.sa_handler == SIG_IGN)
        return;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    sigfillset(&action.sa_mask); /* one handler at a time */
    sigaction(signal_number, &action, NULL);
}

void cli_catch_interrupt(void)
{
    catch_signal(SIGINT, on_interrupt);
}

void cli_install_signal_handlers(void)
{
    static const int ending[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM,   SIGABRT,
                                 SIGALRM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF};
    for (size_t i = 0; i < sizeof ending / sizeof ending[0]; i++)
        catch_signal(ending[i], on_fatal_signal);
    /* A crash too, unless a sanitizer already handles it: its report matters more. */
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        struct sigaction current;
        if (sigaction(faults[i], NULL, &current) == 0 && current.sa_handler == SIG_DFL)
            catch_signal(faults[i], on_fatal_signal);
    }
    /* A closed pipe or a file past its size limit becomes a failed write (EPIPE, EFBIG),
     * reported with its reason and exit 2, instead of a silent death. */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    /* exit() from deep inside (out of memory) must not leave temporaries either. */
    atexit(output_file_remove_temporaries);
}
