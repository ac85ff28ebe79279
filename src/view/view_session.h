/* A viewing session: the panes of one scenario (one per mode, same seed, so they meet the same
 * faults) and the shared simulated clock that wall time drives. The session owns its panes;
 * the scenario is borrowed for the session's lifetime. SDL-free. */
#ifndef IDEMSIM_VIEW_SESSION_H
#define IDEMSIM_VIEW_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "sim_time.h"
#include "view_pane.h"

#define VIEW_SPEED_MIN (1.0 / 64.0)
#define VIEW_SPEED_MAX 4096.0

typedef struct {
    const Scenario *scenario;
    uint64_t seed;
    uint32_t pane_count;
    Mode modes[MODE_COUNT];
    ViewPane *panes[MODE_COUNT];
    SimTimeUs now_us;      /* every pane's world has run up to here (or has finished) */
    double speed;          /* simulated seconds per wall second */
    SimTimeUs slice_us;    /* work per run call, adapted so a frame never blocks */
    double achieved_speed; /* what the last frames managed, when the simulation lags */
} ViewSession;

/* False when out of memory (the session is then released). */
bool view_session_init(ViewSession *session, const Scenario *scenario, const Mode *modes,
                       uint32_t mode_count, uint64_t seed, double speed);
void view_session_release(ViewSession *session);
/* Starts over at time 0 with seed (the same one for a restart). */
bool view_session_restart(ViewSession *session, uint64_t seed);

/* Runs every pane to target_us, in slices, all panes in step. Stops early, with
 * session->now_us short of the target, once budget_s of wall time is spent (budget_s <= 0:
 * no limit, as the headless path needs). Returns the time reached. */
SimTimeUs view_session_advance(ViewSession *session, SimTimeUs target_us, double budget_s);
/* Runs the next event that shows in a trace: in pane `focus`, or (focus < 0) in the pane
 * that is furthest behind. */
void view_session_step(ViewSession *session, int focus);
/* Every pane's world has run out of events: nothing is left to simulate. */
bool view_session_finished(const ViewSession *session);
/* Every pane's operations are settled (ViewTally.done), even if timers are still pending. */
bool view_session_done(const ViewSession *session);
void view_session_set_speed(ViewSession *session, double speed);
/* When no world has anything due for longer than min_gap_us after the clock, moves the clock
 * on to lead_us before the next event (nothing runs in between, so nothing is missed) and
 * returns how far it moved; else 0. A room need not watch an empty stretch in real time.
 * stop_us counts as an event too (a question to ask there; SIM_TIME_NEVER: none). */
SimTimeUs view_session_skip_quiet(ViewSession *session, SimTimeUs min_gap_us, SimTimeUs lead_us,
                                  SimTimeUs stop_us);
/* The time every pane shows, one clock for all columns: the session clock, or a pane's own
 * when stepping moved it on. A pane whose world finished earlier shows the same moment,
 * so the columns stay comparable line for line. */
SimTimeUs view_session_clock(const ViewSession *session);
/* The clock is past the scenario's duration: no new operations start; the messages, timers
 * and sweeps already scheduled are still running out. */
bool view_session_draining(const ViewSession *session);
/* The visible span of the sequence diagrams: a few wall seconds' worth of simulated time. */
SimTimeUs view_session_window_us(const ViewSession *session);

#endif
