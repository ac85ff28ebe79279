/* The session clock. Wall time becomes a budget of simulated time (speed x elapsed); the
 * panes run to it together, in slices whose size adapts to how long a slice took, so a
 * heavy scenario slows the simulation down instead of freezing the window. The headless
 * path passes no budget and gets exactly the requested time. */
#include "view_session.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOW_WALL_SECONDS 2.4 /* a message stays on screen this long at any speed */
#define NARRATION_WALL_SECONDS 2.5
#define SLICE_US_MIN 200u
#define SLICE_US_MAX 60000000u

static double wall_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static void destroy_panes(ViewSession *session)
{
    for (uint32_t p = 0; p < MODE_COUNT; p++) {
        view_pane_destroy(session->panes[p]);
        session->panes[p] = NULL;
    }
}

static bool create_panes(ViewSession *session)
{
    for (uint32_t p = 0; p < session->pane_count; p++) {
        session->panes[p] = view_pane_create(session->scenario, session->modes[p], session->seed);
        if (session->panes[p] == NULL) {
            destroy_panes(session);
            return false;
        }
    }
    session->now_us = 0;
    session->slice_us = SLICE_US_MAX;
    view_session_set_speed(session, session->speed);
    return true;
}

bool view_session_init(ViewSession *session, const Scenario *scenario, const Mode *modes,
                       uint32_t mode_count, uint64_t seed, double speed)
{
    memset(session, 0, sizeof *session);
    session->scenario = scenario;
    session->seed = seed;
    session->speed = speed;
    session->achieved_speed = speed;
    session->pane_count = mode_count < MODE_COUNT ? mode_count : MODE_COUNT;
    memcpy(session->modes, modes, session->pane_count * sizeof *modes);
    return create_panes(session);
}

void view_session_release(ViewSession *session)
{
    destroy_panes(session);
}

bool view_session_restart(ViewSession *session, uint64_t seed)
{
    destroy_panes(session);
    session->seed = seed;
    return create_panes(session);
}

bool view_session_finished(const ViewSession *session)
{
    for (uint32_t p = 0; p < session->pane_count; p++) {
        if (!world_finished(session->panes[p]->world))
            return false;
    }
    return true;
}

bool view_session_done(const ViewSession *session)
{
    for (uint32_t p = 0; p < session->pane_count; p++) {
        if (!session->panes[p]->tally.done)
            return false;
    }
    return true;
}

/* Halves the slice when one took more than a quarter of the budget, doubles it when it was
 * cheap: a few slices per frame, whatever the event rate. */
static void adapt_slice(ViewSession *session, SimTimeUs slice_us, double spent_s, double budget_s)
{
    if (spent_s > budget_s / 4) {
        session->slice_us = slice_us / 2 > SLICE_US_MIN ? slice_us / 2 : SLICE_US_MIN;
    } else if (spent_s < budget_s / 16 && slice_us >= session->slice_us) {
        session->slice_us =
            session->slice_us < SLICE_US_MAX / 2 ? session->slice_us * 2 : SLICE_US_MAX;
    }
}

SimTimeUs view_session_advance(ViewSession *session, SimTimeUs target_us, double budget_s)
{
    double started = wall_seconds();
    while (session->now_us < target_us && !view_session_finished(session)) {
        SimTimeUs next = target_us;
        if (budget_s > 0 && target_us - session->now_us > session->slice_us)
            next = session->now_us + session->slice_us;
        double slice_started = wall_seconds();
        for (uint32_t p = 0; p < session->pane_count; p++)
            view_pane_run_until(session->panes[p], next);
        SimTimeUs slice_us = next - session->now_us;
        session->now_us = next;
        if (budget_s <= 0)
            continue;
        adapt_slice(session, slice_us, wall_seconds() - slice_started, budget_s);
        if (wall_seconds() - started >= budget_s)
            break;
    }
    return session->now_us;
}

void view_session_step(ViewSession *session, int focus)
{
    int chosen = -1;
    for (uint32_t p = 0; p < session->pane_count; p++) {
        const World *world = session->panes[p]->world;
        if (world_finished(world) || (focus >= 0 && (int)p != focus))
            continue;
        if (chosen < 0 || world_now(world) < world_now(session->panes[chosen]->world))
            chosen = (int)p;
    }
    if (chosen < 0)
        return;
    view_pane_step(session->panes[chosen], 1000000);
    SimTimeUs earliest = SIM_TIME_NEVER;
    for (uint32_t p = 0; p < session->pane_count; p++) {
        const World *world = session->panes[p]->world;
        if (!world_finished(world) && world_now(world) < earliest)
            earliest = world_now(world);
    }
    if (earliest != SIM_TIME_NEVER && earliest > session->now_us)
        session->now_us = earliest;
}

void view_session_set_speed(ViewSession *session, double speed)
{
    if (speed < VIEW_SPEED_MIN)
        speed = VIEW_SPEED_MIN;
    if (speed > VIEW_SPEED_MAX)
        speed = VIEW_SPEED_MAX;
    session->speed = speed;
    SimTimeUs hold_us = (SimTimeUs)(NARRATION_WALL_SECONDS * speed * 1e6);
    for (uint32_t p = 0; p < session->pane_count; p++) {
        if (session->panes[p] != NULL)
            session->panes[p]->narration_hold_us = hold_us > 50000 ? hold_us : 50000;
    }
}

SimTimeUs view_session_skip_quiet(ViewSession *session, SimTimeUs min_gap_us, SimTimeUs lead_us,
                                  SimTimeUs stop_us)
{
    SimTimeUs next = stop_us;
    for (uint32_t p = 0; p < session->pane_count; p++) {
        SimTimeUs due = world_next_event_us(session->panes[p]->world);
        next = due < next ? due : next;
    }
    SimTimeUs now = view_session_clock(session);
    if (next == SIM_TIME_NEVER || next <= now || next - now <= min_gap_us || next - now <= lead_us)
        return 0;
    SimTimeUs target = next - lead_us;
    view_session_advance(session, target, 0); /* no event is due before target: cheap */
    return target - now;
}

SimTimeUs view_session_clock(const ViewSession *session)
{
    SimTimeUs clock = session->now_us;
    for (uint32_t p = 0; p < session->pane_count; p++) {
        SimTimeUs t = world_now(session->panes[p]->world);
        clock = t > clock ? t : clock;
    }
    return clock;
}

bool view_session_draining(const ViewSession *session)
{
    return view_session_clock(session) > (SimTimeUs)session->scenario->duration_ms * 1000;
}

SimTimeUs view_session_window_us(const ViewSession *session)
{
    double window_s = WINDOW_WALL_SECONDS * session->speed;
    if (window_s < 0.25)
        window_s = 0.25;
    if (window_s > 60.0)
        window_s = 60.0;
    return (SimTimeUs)(window_s * 1e6);
}
