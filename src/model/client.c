/* Clients: each runs its operations one after another (closed loop) or on a clock (open
 * loop). An operation is one or two clicks (a double click is a second user action, a
 * scheduler's second instance a second run of the period's job, C34); each
 * click is a request sequence with its own attempts, timeout, backoff and key. The client
 * records what it was told; the truth (effects) is kept by the server side. */
#include "distribution.h"
#include "sim_assert.h"
#include "world_internal.h"

/* ------------------------------------------------------------------ helpers */

static const ClientGroup *group_of_client(const World *world, uint32_t client)
{
    return &world->groups[world->clients[client].group];
}

/* The group whose orders the client's operations are: its own, or the one it names with
 * same_orders_as (C33), so that two paths to one order share its business key. */
static uint32_t orders_group_of_client(const World *world, uint32_t client)
{
    return world->groups[world->clients[client].group].orders_group;
}

/* The order number a business-hash key and the fingerprint are made of. The helpers take
 * the operation's client, which every caller has at hand, instead of dividing the
 * operation id again (several times per attempt on the hot path, issue 25). */
static uint64_t order_of(const World *world, uint32_t client, uint64_t operation)
{
    const ClientGroup *group = group_of_client(world, client);
    return (uint64_t)group->spec->operation.order_base + (operation - group->first_operation);
}

static uint64_t request_fingerprint(const World *world, uint32_t client, uint64_t operation)
{
    const ClientGroupSpec *spec = group_of_client(world, client)->spec;
    uint64_t group = orders_group_of_client(world, client);
    return world_draw(world, DRAW_FINGERPRINT,
                      ((uint64_t)spec->operation.kind << 48) | (group << 32) | spec->account,
                      (uint64_t)spec->operation.amount, order_of(world, client, operation));
}

static uint64_t business_key_of(const World *world, uint32_t client, uint64_t operation)
{
    const ClientGroupSpec *spec = group_of_client(world, client)->spec;
    /* Order numbers count per client group: two groups' orders never coincide, unless one
     * says its orders are the other's (same_orders_as). */
    uint32_t group = orders_group_of_client(world, client);
    uint64_t key = world_draw(world, DRAW_KEY, ((uint64_t)group << 32) | spec->account,
                              (uint64_t)spec->operation.amount, order_of(world, client, operation));
    return key != 0 ? key : 1;
}

/* Whether a response made for operation `of` answers operation `to`: the same operation, or
 * the same order reached by another path (C33), whose answer is the right one. */
static bool answers_operation(const World *world, uint64_t of, uint64_t to)
{
    if (of == to)
        return true;
    if (world->order_effects == NULL)
        return false;
    const ClientGroup *of_group =
        &world->groups[world->clients[world_client_of_operation(world, of)].group];
    const ClientGroup *to_group =
        &world->groups[world->clients[world_client_of_operation(world, to)].group];
    return of_group->orders_group == to_group->orders_group &&
           of - of_group->first_operation == to - to_group->first_operation;
}

static uint64_t key_for(const World *world, uint64_t operation, uint32_t click, uint32_t attempt)
{
    uint32_t client = world_client_of_operation(world, operation);
    const ClientGroupSpec *spec = group_of_client(world, client)->spec;
    uint64_t key = 0;
    switch (spec->key) {
    case KEY_NONE:
    case KEY_SERVER_GENERATED: /* the server makes one per request it receives */
        return 0;
    case KEY_PER_ATTEMPT:
        key = world_draw(world, DRAW_KEY, operation, click, attempt);
        break;
    case KEY_PER_CLICK:
    case KEY_MESSAGE_ID:
        key = world_draw(world, DRAW_KEY, operation, click, 0);
        break;
    case KEY_BUSINESS_HASH:
        return business_key_of(world, client, operation);
    case KEY_STRATEGY_COUNT:
        break;
    }
    if (spec->key_bits < 64) /* a small key space: keys of different payments may collide */
        key &= (1ull << spec->key_bits) - 1;
    return key != 0 ? key : 1;
}

/* ------------------------------------------------------------------ operations */

static void schedule_next_operation(World *world, uint32_t client, SimTimeUs after_us)
{
    Client *c = &world->clients[client];
    const ClientGroup *group = &world->groups[c->group];
    const WorkloadSpec *workload = &group->spec->workload;
    if (c->operations_started >= group->operations_per_client)
        return;
    uint64_t operation = c->first_operation + c->operations_started;
    SimTimeUs at;
    if (workload->at_count > 0) {
        at = sim_time_us_from_ms(workload->at_ms[c->operations_started]);
        if (at < sim_now(world->sim))
            at = sim_now(world->sim);
    } else {
        at = after_us + distribution_sample_ms_as_us(
                            &workload->interval_ms,
                            world_draw(world, DRAW_INTERVAL, client, c->operations_started, 0));
    }
    if (at > world->duration_us)
        return;
    c->operations_started++;
    world->starts_scheduled++;
    sim_schedule_at(world->sim, at, EVENT_OPERATION_START, client, operation);
}

void client_init(World *world)
{
    for (uint32_t client = 0; client < world->client_count; client++) {
        const ClientGroup *group = group_of_client(world, client);
        schedule_next_operation(world, client, sim_time_us_from_ms(group->spec->workload.start_ms));
    }
}

/* The budget of 409 and 202 answers, and of status queries, a click has: max_conflicts, or
 * max_attempts when that is 0 (conflicts then count against it, as attempts do). */
static uint32_t conflict_budget(const RetrySpec *retry)
{
    return retry->max_conflicts > 0 ? retry->max_conflicts : retry->max_attempts;
}

/* Asks the server what became of the click's key (a GET by key): after a 202, and instead of
 * giving up when on_unknown says lookup. Its answer comes back as a response. */
static void send_query(World *world, uint64_t operation, uint32_t click, bool instead_of_giving_up)
{
    Operation *op = world_operation(world, operation);
    ClickState *state = &op->clicks[click];
    Client *client = &world->clients[op->client];
    const ClientGroup *group = &world->groups[client->group];
    state->queries++;
    state->resolving = true;
    state->unknown_lookup |= instead_of_giving_up;
    state->awaiting_answer = true;
    world->metrics.status_queries++;
    Message query = {
        .kind = MESSAGE_STATUS_QUERY,
        .hop = HOP_STATUS_QUERY,
        .source = group->node,
        .target = world->server_node, /* straight to the server, past any proxy */
        .client = op->client,
        .click = click,
        .attempt = state->attempts,
        .operation = operation,
        .lineage = state->queries, /* each query a message of its own, with its own fate */
        .key = state->key,
        .fingerprint = request_fingerprint(world, op->client, operation),
    };
    if (world_tracing(world))
        world_trace_client(world, op->client, TRACE_STATUS_QUERY, operation, click, state->attempts,
                           state->queries, 0);
    if (sim_now(world->sim) < client->offline_until_us) {
        world->metrics.network_dropped++;
        if (world_tracing(world))
            world_trace_client(world, op->client, TRACE_LOST_OFFLINE, operation, click,
                               state->attempts, 0, MESSAGE_STATUS_QUERY);
    } else {
        network_send(world, &query);
    }
    state->timer = sim_schedule_in(world->sim, group->timeout_us, EVENT_ATTEMPT_TIMEOUT, op->client,
                                   request_reference(operation, click));
}

static void begin_click(World *world, uint64_t operation, uint32_t click);

void client_on_operation_start(World *world, uint32_t client, uint64_t operation)
{
    Operation *op = operation_table_insert(&world->operations, operation);
    const ClientGroup *group = group_of_client(world, client);
    world->starts_scheduled--;
    op->client = client;
    op->clicks[0].timer = op->clicks[1].timer = EVENT_ID_NONE;
    op->started_us = sim_now(world->sim);
    op->click_count = 1;
    world->metrics.operations++;
    if (group->spec->operation.kind == OPERATION_DEBIT)
        world->metrics.balances[group->spec->account].expected -= group->spec->operation.amount;
    const DoubleClickSpec *double_click = &group->spec->double_click;
    const ScheduleSpec *schedule = &group->spec->schedule;
    if (world_fault(world, FAULT_DOUBLE_CLICK, DRAW_DOUBLE_CLICK, operation, 0, 0,
                    double_click->prob)) {
        op->click_count = 2;
        SimTimeUs delay = distribution_sample_ms_as_us(
            &double_click->delay_ms, world_draw(world, DRAW_DOUBLE_CLICK_DELAY, operation, 0, 0));
        sim_schedule_in(world->sim, delay, EVENT_CLICK, client, request_reference(operation, 1));
    } else if (schedule->instances > 1 &&
               world_fault(world, FAULT_SECOND_FIRING, DRAW_SECOND_FIRING, operation, 0, 0,
                           schedule->both_fire)) {
        /* C34: the second instance fires the same period: a run of its own, whose key is
         * its own unless it is derived from the period (business-hash). The loader refuses
         * a double click beside it, so the second request sequence is free. */
        op->click_count = 2;
        world->metrics.second_firings++;
        SimTimeUs skew = distribution_sample_ms_as_us(
            &schedule->skew_ms, world_draw(world, DRAW_SECOND_FIRING_SKEW, operation, 0, 0));
        sim_schedule_in(world->sim, skew, EVENT_CLICK, client, request_reference(operation, 1));
    }
    begin_click(world, operation, 0);
    if (group->spec->workload.loop == LOOP_OPEN || group->spec->workload.at_count > 0)
        schedule_next_operation(world, client, sim_now(world->sim));
}

static void finish_operation(World *world, uint64_t operation)
{
    Operation *op = world_operation(world, operation);
    histogram_record(&world->metrics.latency_us, sim_now(world->sim) - op->started_us);
    for (uint32_t c = 0; c < op->click_count; c++) {
        if (op->clicks[c].result == BELIEF_SUCCEEDED) { /* goodput, as the client sees it */
            count_series_add(&world->metrics.succeeded_series, sim_now(world->sim), 1);
            break;
        }
    }
    uint32_t client = op->client;
    const ClientGroup *group = group_of_client(world, client);
    world_operation_finished(world, op); /* may settle it: op is not used after this */
    if (group->spec->workload.loop == LOOP_CLOSED && group->spec->workload.at_count == 0)
        schedule_next_operation(world, client, sim_now(world->sim));
}

static void finish_click(World *world, uint64_t operation, uint32_t click, Belief result,
                         TraceEvent why)
{
    Operation *op = world_operation(world, operation);
    ClickState *state = &op->clicks[click];
    SIM_ASSERT(state->active, "a click finishes once");
    sim_cancel(world->sim, state->timer);
    state->timer = EVENT_ID_NONE;
    state->active = false;
    state->result = result;
    op->clicks_done++;
    if (world_tracing(world))
        world_trace_client(world, op->client, why, operation, click, state->attempts, 0, 0);
    if (op->clicks_done == op->click_count)
        finish_operation(world, operation);
}

/* ------------------------------------------------------------------ attempts */

/* The app may restart right after a click's first send (clients[].restart): the answer
 * finds nobody, and a key held only in memory is gone. It is back after delay_ms and retries
 * at once, with the key it has: the same one if it persisted it or derives it from the
 * order (business-hash), else a new one. Reuses the offline machinery: an app that is not
 * running hears nothing. */
static bool app_restarts(World *world, uint64_t operation, uint32_t click)
{
    Operation *op = world_operation(world, operation);
    ClickState *state = &op->clicks[click];
    Client *client = &world->clients[op->client];
    const ClientGroupSpec *spec = world->groups[client->group].spec;
    SimTimeUs now = sim_now(world->sim);
    if (state->attempts != 1 || now < client->offline_until_us ||
        !world_fault(world, FAULT_APP_RESTART, DRAW_APP_RESTART, operation, click, 0,
                     spec->restart.prob))
        return false;
    SimTimeUs delay = distribution_sample_ms_as_us(
        &spec->restart.delay_ms, world_draw(world, DRAW_APP_RESTART_DELAY, operation, click, 0));
    client->offline_until_us = now + delay;
    client->app_restarts++; /* a new producer session */
    bool kept = spec->key_persisted || spec->key == KEY_BUSINESS_HASH || state->key == 0;
    state->key_forgotten = !kept;
    if (world_tracing(world))
        world_trace_client(world, op->client, TRACE_APP_RESTART, operation, click, state->attempts,
                           (int64_t)(delay / SIM_US_PER_MS), !kept);
    state->timer = sim_schedule_at(world->sim, client->offline_until_us, EVENT_RECONNECT,
                                   op->client, request_reference(operation, click));
    return true;
}

static void budget_deposit(World *world, ClientGroup *group);

/* The click's latest attempt as a message, built in *request; lineage tells one send of it
 * from another. Inline, and into the caller's message: as a call's result, inline or not, it
 * was built and then copied into the caller's. */
static inline void attempt_request(World *world, uint64_t operation, uint32_t click,
                                   uint64_t lineage, Message *request)
{
    Operation *op = world_operation(world, operation);
    ClickState *state = &op->clicks[click];
    Client *client = &world->clients[op->client];
    const ClientGroup *group = &world->groups[client->group];
    bool publishes = group->spec->target == TARGET_BROKER;
    *request = (Message){
        .kind = MESSAGE_REQUEST,
        .hop = HOP_REQUEST,
        .source = group->node,
        .target = publishes                       ? world->broker_nodes[group->spec->broker]
                  : group->spec->via == VIA_PROXY ? world->proxy_nodes[group->spec->proxy]
                                                  : world->server_node,
        .client = op->client,
        .click = click,
        .attempt = state->attempts,
        .operation = operation,
        .lineage = lineage,
        .key = state->key,
        /* Read only by consumers that key on it: a draw per attempt saved elsewhere. */
        .business_key = world->business_keys ? business_key_of(world, op->client, operation) : 0,
        .fingerprint = request_fingerprint(world, op->client, operation),
        .session = client->app_restarts,
        .key_respelled =
            key_spelling_respelled(world, group->spec, operation, click, state->attempts),
        /* The fields a request has none of, named too: an initialiser that names every field
         * is stored field by field, where one that leaves some out first clears all 120
         * bytes with a `rep stos`, slow to start on short lengths (5% of PAY-1's CPU went to
         * such clears on the hot path). */
        .status = 0,
        .response_of = 0,
        .reply_to = {REPLY_TO_NONE, 0, 0},
        .retry_after_us = 0,
        .receipt = false,
        .timeout_us = 0, /* deadline_stamp's, below */
        .channel = 0,
    };
    /* A publish always carries a message id; without a key strategy it is new per send. */
    if (publishes && request->key == 0)
        request->key = world_draw(world, DRAW_KEY, operation, click, state->attempts) | 1;
    if (!publishes) /* server.deadline: the attempt's timeout travels with it (C31) */
        deadline_stamp(world, request, group->timeout_us);
}

/* clients[].library_retries (C32): the library sends the attempt again on a new connection;
 * the app's attempt, its timer and its count are unchanged, and so are its headers (the
 * deadline header: the closed answer still holds the request's). */
static void resend_attempt(World *world, const Message *closed)
{
    ClickState *state = &world_operation(world, closed->operation)->clicks[closed->click];
    Message request;
    attempt_request(world, closed->operation, closed->click,
                    lineage_of_repeat(1, state->library_tries), &request);
    request.timeout_us = closed->timeout_us;
    network_send(world, &request);
}

static void send_attempt(World *world, uint64_t operation, uint32_t click)
{
    Operation *op = world_operation(world, operation);
    ClickState *state = &op->clicks[click];
    Client *client = &world->clients[op->client];
    const ClientGroup *group = &world->groups[client->group];
    state->attempts++;
    state->awaiting_answer = true;
    state->library_tries = 0;
    world->metrics.attempts++;
    count_series_add(&world->metrics.attempts_series, sim_now(world->sim), 1);
    if (state->attempts == 1)
        budget_deposit(world, &world->groups[client->group]);
    else
        world->metrics.retries++;
    if (group->spec->key == KEY_PER_ATTEMPT)
        state->key = key_for(world, operation, click, state->attempts);
    Message request;
    attempt_request(world, operation, click, 1, &request);
    SimTimeUs now = sim_now(world->sim);
    if (world_tracing(world))
        world_trace_client(world, op->client, state->attempts == 1 ? TRACE_SEND : TRACE_RETRY,
                           operation, click, state->attempts, 0, 0);
    if (now < client->offline_until_us) {
        world->metrics.network_dropped++; /* no network: the request never leaves the phone */
        if (world_tracing(world))
            world_trace_client(world, op->client, TRACE_LOST_OFFLINE, operation, click,
                               state->attempts, 0, MESSAGE_REQUEST);
    } else {
        network_send(world, &request);
    }
    if (app_restarts(world, operation, click))
        return;
    const OfflineSpec *offline = &group->spec->offline;
    /* The app loses the network at most once per click, right after its first send. */
    if (state->attempts == 1 && now >= client->offline_until_us &&
        world_fault(world, FAULT_OFFLINE, DRAW_OFFLINE, operation, click, state->attempts,
                    offline->prob)) {
        SimTimeUs duration = distribution_sample_ms_as_us(
            &offline->duration_ms,
            world_draw(world, DRAW_OFFLINE_DURATION, operation, click, state->attempts));
        client->offline_until_us = now + duration;
        if (world_tracing(world))
            world_trace_client(world, op->client, TRACE_OFFLINE, operation, click, state->attempts,
                               (int64_t)(duration / SIM_US_PER_MS), 0);
        state->timer = sim_schedule_at(world->sim, client->offline_until_us, EVENT_RECONNECT,
                                       op->client, request_reference(operation, click));
        return;
    }
    state->timer = sim_schedule_in(world->sim, group->timeout_us, EVENT_ATTEMPT_TIMEOUT, op->client,
                                   request_reference(operation, click));
}

static void begin_click(World *world, uint64_t operation, uint32_t click)
{
    Operation *op = world_operation(world, operation);
    ClickState *state = &op->clicks[click];
    state->active = true;
    state->attempts = 0;
    state->key = key_for(world, operation, click, 1);
    const ClientGroupSpec *spec = group_of_client(world, op->client)->spec;
    bool has_previous = operation > world->clients[op->client].first_operation;
    /* The app bug of C8: the key of the previous payment was never replaced. */
    if (click == 0 && has_previous && spec->key_reuse > 0 && spec->key != KEY_PER_ATTEMPT &&
        world_draw_unit(world, DRAW_KEY_REUSE, operation, 0, 0) < spec->key_reuse)
        state->key = key_for(world, operation - 1, 0, 1);
    send_attempt(world, operation, click);
}

void client_on_click(World *world, uint64_t reference)
{
    begin_click(world, reference / CLICKS_MAX, (uint32_t)(reference % CLICKS_MAX));
}

/* Exponential backoff with cap and jitter (AWS Architecture Blog, "Exponential Backoff And
 * Jitter"); the draw is per (operation, click, attempt) so every mode waits alike. */
static SimTimeUs backoff_us(World *world, uint64_t operation, uint32_t click)
{
    Operation *op = world_operation(world, operation);
    ClickState *state = &op->clicks[click];
    const RetrySpec *retry = &group_of_client(world, op->client)->retry;
    double ceiling = retry->base_ms;
    for (uint32_t i = 1; i < state->attempts && ceiling < retry->max_ms; i++)
        ceiling *= retry->factor;
    if (ceiling > retry->max_ms)
        ceiling = retry->max_ms;
    double u = world_draw_unit(world, DRAW_BACKOFF, operation, click, state->attempts);
    double ms = ceiling;
    switch (retry->jitter) {
    case JITTER_NONE:
        break;
    case JITTER_FULL:
        ms = ceiling * u;
        break;
    case JITTER_EQUAL:
        ms = ceiling / 2.0 + ceiling / 2.0 * u;
        break;
    case JITTER_DECORRELATED: {
        double previous = state->previous_backoff_us / 1000.0;
        if (previous < retry->base_ms)
            previous = retry->base_ms;
        ms = retry->base_ms + (previous * 3.0 - retry->base_ms) * u;
        if (ms > retry->max_ms)
            ms = retry->max_ms;
        break;
    }
    }
    state->previous_backoff_us = sim_time_us_from_ms(ms);
    return state->previous_backoff_us;
}

/* ------------------------------------------------------------------ retry budget */

/* Tokens are counted in millionths (integers), so ten deposits of 0.1 make exactly one
 * token: a float sum of ten 0.1 is just under 1, and the tenth request would not earn its
 * retry. */
#define BUDGET_TOKEN 1000000

static int64_t budget_units(double tokens)
{
    return (int64_t)(tokens * BUDGET_TOKEN + 0.5);
}

/* The group's bucket earns min_per_s tokens per second of simulated time, up to max_tokens
 * (Finagle's RetryBudget reserve; gRPC's bucket has only the ratio). */
static void budget_refill(World *world, ClientGroup *group)
{
    const RetryBudgetSpec *budget = &group->retry.budget;
    SimTimeUs now = sim_now(world->sim);
    /* min_per_s tokens per second is min_per_s millionths per microsecond */
    group->budget_tokens +=
        (int64_t)(budget->min_per_s * (double)(now - group->budget_refilled_us));
    group->budget_refilled_us = now;
    if (group->budget_tokens > budget_units(budget->max_tokens))
        group->budget_tokens = budget_units(budget->max_tokens);
}

/* Finagle: a first attempt (a new request) pays `ratio` into its group's bucket. */
static void budget_deposit(World *world, ClientGroup *group)
{
    if (!group->retry.budget.enabled || group->retry.budget.kind == BUDGET_KIND_GRPC)
        return;
    budget_refill(world, group);
    group->budget_tokens += budget_units(group->retry.budget.ratio);
    if (group->budget_tokens > budget_units(group->retry.budget.max_tokens))
        group->budget_tokens = budget_units(group->retry.budget.max_tokens);
}

/* gRPC's retry throttling (A6): each attempt's outcome moves the count, a success up by
 * `ratio` (to max_tokens at most), a failure (a timeout, a 5xx, 429 or 503, a reset, a
 * lost connection) down by one (to zero at least). 409, 202 and other 4xx move nothing:
 * they are not the server failing. Finagle's bucket ignores outcomes. */
static void budget_record(ClientGroup *group, bool succeeded)
{
    const RetryBudgetSpec *budget = &group->retry.budget;
    if (!budget->enabled || budget->kind != BUDGET_KIND_GRPC)
        return;
    if (succeeded) {
        group->budget_tokens += budget_units(budget->ratio);
        if (group->budget_tokens > budget_units(budget->max_tokens))
            group->budget_tokens = budget_units(budget->max_tokens);
    } else {
        group->budget_tokens -= BUDGET_TOKEN;
        if (group->budget_tokens < 0)
            group->budget_tokens = 0;
    }
}

/* Finagle: a retry takes a whole token, or is not sent. gRPC: a retry is sent only while
 * the count is above half of max_tokens, and costs nothing (the failure before it did). */
static bool budget_withdraw(World *world, ClientGroup *group)
{
    if (!group->retry.budget.enabled)
        return true;
    if (group->retry.budget.kind == BUDGET_KIND_GRPC) {
        if (2 * group->budget_tokens > budget_units(group->retry.budget.max_tokens))
            return true;
        world->metrics.retries_throttled++;
        return false;
    }
    budget_refill(world, group);
    if (group->budget_tokens < BUDGET_TOKEN) {
        world->metrics.retries_throttled++;
        return false;
    }
    group->budget_tokens -= BUDGET_TOKEN;
    return true;
}

static void retry_or_give_up(World *world, uint64_t operation, uint32_t click, bool allowed,
                             SimTimeUs wait_us, Belief if_not)
{
    Operation *op = world_operation(world, operation);
    ClickState *state = &op->clicks[click];
    ClientGroup *group = &world->groups[world->clients[op->client].group];
    const RetrySpec *retry = &group->retry;
    if (allowed && state->attempts < retry->max_attempts && !budget_withdraw(world, group))
        allowed = false; /* the budget is spent: the click ends with what it has */
    if (!allowed || state->attempts >= retry->max_attempts) {
        const ClientGroupSpec *spec = group_of_client(world, op->client)->spec;
        if (if_not == BELIEF_UNKNOWN && spec->on_unknown == ON_UNKNOWN_LOOKUP && state->key != 0 &&
            state->queries < conflict_budget(retry)) {
            send_query(world, operation, click, true);
            return;
        }
        finish_click(world, operation, click, if_not,
                     if_not == BELIEF_FAILED ? TRACE_FAILED : TRACE_GIVE_UP);
        return;
    }
    state->timer = sim_schedule_in(world->sim, wait_us, EVENT_RETRY, op->client,
                                   request_reference(operation, click));
}

void client_on_retry(World *world, uint64_t reference)
{
    uint64_t operation = reference / CLICKS_MAX;
    uint32_t click = (uint32_t)(reference % CLICKS_MAX);
    ClickState *state = &world_operation(world, operation)->clicks[click];
    state->timer = EVENT_ID_NONE;
    if (state->resolving)
        send_query(world, operation, click, false); /* polling a key in progress */
    else
        send_attempt(world, operation, click);
}

void client_on_attempt_timeout(World *world, uint64_t reference)
{
    uint64_t operation = reference / CLICKS_MAX;
    uint32_t click = (uint32_t)(reference % CLICKS_MAX);
    Operation *op = world_operation(world, operation);
    ClickState *state = &op->clicks[click];
    const RetrySpec *retry = &group_of_client(world, op->client)->retry;
    state->timer = EVENT_ID_NONE;
    state->awaiting_answer = false; /* it hung up */
    if (world_tracing(world))
        world_trace_client(world, op->client, TRACE_TIMEOUT, operation, click, state->attempts, 0,
                           0);
    if (state->resolving) { /* a status query unanswered: ask again, or give up */
        if (state->queries < conflict_budget(retry))
            state->timer =
                sim_schedule_in(world->sim, backoff_us(world, operation, click), EVENT_RETRY,
                                op->client, request_reference(operation, click));
        else
            finish_click(world, operation, click, BELIEF_UNKNOWN, TRACE_GIVE_UP);
        return;
    }
    budget_record(&world->groups[world->clients[op->client].group], false);
    retry_or_give_up(world, operation, click, retry->on_timeout,
                     backoff_us(world, operation, click), BELIEF_UNKNOWN);
}

/* Back online: the app retries at once with the same key (DESIGN §4 "offline"). */
void client_on_reconnect(World *world, uint64_t reference)
{
    uint64_t operation = reference / CLICKS_MAX;
    uint32_t click = (uint32_t)(reference % CLICKS_MAX);
    Operation *op = world_operation(world, operation);
    op->clicks[click].timer = EVENT_ID_NONE;
    if (world_tracing(world))
        world_trace_client(world, op->client, TRACE_RECONNECT, operation, click,
                           op->clicks[click].attempts, 0, 0);
    ClickState *state = &op->clicks[click];
    if (state->key_forgotten) { /* a new key, as a fresh app would make one */
        state->key = world_draw(world, DRAW_KEY, operation, click, 1000 + state->attempts) | 1;
        state->key_forgotten = false;
    }
    budget_record(&world->groups[world->clients[op->client].group], false); /* no answer */
    retry_or_give_up(world, operation, click, true, 0, BELIEF_UNKNOWN);
}

/* ------------------------------------------------------------------ answers */

/* 202: accepted, still running. The request is not sent again: the client asks for the
 * key's status after conflict_delay_ms (Retry-After), until the stored answer comes. */
static void on_accepted(World *world, uint64_t operation, uint32_t click)
{
    Operation *op = world_operation(world, operation);
    ClickState *state = &op->clicks[click];
    const RetrySpec *retry = &group_of_client(world, op->client)->retry;
    state->conflicts++;
    if (state->conflicts > conflict_budget(retry) || state->key == 0) {
        finish_click(world, operation, click, BELIEF_UNKNOWN, TRACE_GIVE_UP);
        return;
    }
    state->resolving = true;
    state->timer = sim_schedule_in(world->sim, sim_time_us_from_ms(retry->conflict_delay_ms),
                                   EVENT_RETRY, op->client, request_reference(operation, click));
}

/* 409: another request with the key is running. The request is sent again later; with
 * max_conflicts the conflicts have a budget of their own instead of using up attempts. */
static void on_conflict(World *world, uint64_t operation, uint32_t click)
{
    Operation *op = world_operation(world, operation);
    ClickState *state = &op->clicks[click];
    const RetrySpec *retry = &group_of_client(world, op->client)->retry;
    SimTimeUs wait = sim_time_us_from_ms(retry->conflict_delay_ms);
    state->conflicts++;
    if (retry->max_conflicts == 0) {
        retry_or_give_up(world, operation, click, retry->on_409, wait, BELIEF_UNKNOWN);
        return;
    }
    if (!retry->on_409 || state->conflicts > retry->max_conflicts) {
        finish_click(world, operation, click, BELIEF_UNKNOWN, TRACE_GIVE_UP);
        return;
    }
    state->timer = sim_schedule_in(world->sim, wait, EVENT_RETRY, op->client,
                                   request_reference(operation, click));
}

/* What the server said of the key: the stored answer (succeeded or failed, resolved), 202
 * (still running: ask again), 404 (no such key: it never ran, or its failure was forgotten;
 * send the request again if attempts remain, else it is known not to have happened), or no
 * answer it can give (400: no key store). */
static void on_status_answer(World *world, const Message *answer)
{
    Operation *op = world_operation(world, answer->operation);
    ClickState *state = &op->clicks[answer->click];
    const RetrySpec *retry = &group_of_client(world, op->client)->retry;
    if (!state->resolving || !state->awaiting_answer || answer->lineage / 4 != state->queries)
        return; /* an earlier query's answer */
    state->awaiting_answer = false;
    sim_cancel(world->sim, state->timer);
    state->timer = EVENT_ID_NONE;
    int status = answer->status;
    bool resolved = true;
    if (status == 202) {
        on_accepted(world, answer->operation, answer->click);
        return;
    }
    if (status == 404 && state->attempts < retry->max_attempts) {
        state->resolving = false; /* it never ran: the request itself is sent again */
        send_attempt(world, answer->operation, answer->click);
        return;
    }
    if (status >= 200 && status < 300) {
        if (!answers_operation(world, answer->response_of, answer->operation))
            op->mismatch = true;
        finish_click(world, answer->operation, answer->click, BELIEF_SUCCEEDED, TRACE_SUCCEEDED);
    } else if (status == 404 || (status >= 400 && status < 500 && status != 400)) {
        finish_click(world, answer->operation, answer->click, BELIEF_FAILED, TRACE_FAILED);
    } else {
        resolved = false; /* 400 (nobody keeps keys) or a stored 5xx: still unknown */
        finish_click(world, answer->operation, answer->click, BELIEF_UNKNOWN, TRACE_GIVE_UP);
    }
    if (resolved && state->unknown_lookup)
        world->metrics.resolved_by_lookup++;
}

void client_on_response(World *world, const Message *response)
{
    Operation *op = world_operation(world, response->operation);
    ClickState *state = &op->clicks[response->click];
    Client *client = &world->clients[op->client];
    const RetrySpec *retry = &group_of_client(world, op->client)->retry;
    if (sim_now(world->sim) < client->offline_until_us) {
        world->metrics.network_dropped++; /* the phone has no network: the answer is lost */
        if (world_tracing(world))
            world_trace_client(world, op->client, TRACE_LOST_OFFLINE, response->operation,
                               response->click, response->attempt, 0, MESSAGE_RESPONSE);
        return;
    }
    if (!state->active)
        return; /* the click already has its answer */
    if (response->hop == HOP_STATUS_ANSWER) {
        on_status_answer(world, response);
        return;
    }
    bool current = response->attempt == state->attempts && state->awaiting_answer;
    if (!current && retry->late_response == LATE_RESPONSE_IGNORE) {
        world->metrics.late_responses_ignored++; /* that attempt's connection is closed */
        return;
    }
    if (current && connection_library_replays(world, group_of_client(world, op->client)->spec,
                                              state, response)) {
        resend_attempt(world, response);
        return; /* the app hears nothing of it */
    }
    state->awaiting_answer = false;
    sim_cancel(world->sim, state->timer);
    state->timer = EVENT_ID_NONE;
    int status = response->status;
    ClientGroup *group = &world->groups[client->group];
    if (status >= 200 && status < 300 && status != 202) {
        budget_record(group, true);
        if (!answers_operation(world, response->response_of, response->operation))
            op->mismatch = true;
        finish_click(world, response->operation, response->click, BELIEF_SUCCEEDED,
                     TRACE_SUCCEEDED);
    } else if (status == 202) {
        on_accepted(world, response->operation, response->click);
    } else if (status == 409) {
        on_conflict(world, response->operation, response->click);
    } else if (status == SERVER_STATUS_RESET) { /* a connection error: as a timeout */
        budget_record(group, false);
        retry_or_give_up(world, response->operation, response->click, retry->on_timeout,
                         backoff_us(world, response->operation, response->click), BELIEF_UNKNOWN);
    } else if (status >= 500 || status == 429) {
        budget_record(group, false);
        SimTimeUs wait = backoff_us(world, response->operation, response->click);
        if (retry->honour_retry_after && response->retry_after_us > wait)
            wait = response->retry_after_us; /* never before the server said */
        retry_or_give_up(world, response->operation, response->click, retry->on_5xx, wait,
                         BELIEF_UNKNOWN);
    } else {
        finish_click(world, response->operation, response->click, BELIEF_FAILED, TRACE_FAILED);
    }
}

/* ------------------------------------------------------------------ its node kind's model */

const NodeKindModel node_model_client_group = {
    .init = client_init,
    .on_message = {[MESSAGE_RESPONSE] = client_on_response},
};
