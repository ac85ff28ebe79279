/* The retrying proxies: an API gateway or a service-mesh sidecar between clients and the
 * server that retries on its own (the first proxy, and any extra one a client group calls,
 * each with its own settings), in every mode (the application sent once; the proxy does
 * not know what the request does). Each request copy that reaches it is a call: after the
 * proxy's own processing it is forwarded to the server, and a try unanswered within
 * per_try_timeout_ms, or answered 5xx (or 409, by retry_on), is sent again at once, up to
 * `retries` more times, as Envoy's route retry policy does. A try that timed out is
 * abandoned (its answer, if one comes, is dropped): the server may well have run it. When the
 * tries run out the client gets the last answer, or 504 after a last timeout. With
 * forwards_key false the Idempotency-Key header does not survive the trip. Before a server
 * of several instances the server's balancer picks each try's instance, or, with retry_host
 * "other", a retry goes to one the call has not tried yet. A proxy's process may crash
 * (ProxySpec.crash), drawn per request as it is forwarded or just after: every call it
 * carries then ends with its client's connection closed (a reset, which the client takes
 * as a try that failed), its tries left to run at the server, and until its restart a
 * request meets a closed port (a reset too). */
#include <stdlib.h>

#include "distribution.h"
#include "sim_assert.h"
#include "world_internal.h"

/* An answer names its call and the try it answers: serial x 64 + try (tries stay < 64). */
static uint64_t reply_serial(const ProxyCall *call)
{
    return call->serial * 64 + call->tries;
}

static ProxyCall *call_named(World *world, ReplyTo reply_to)
{
    Proxy *proxy = &world->proxy;
    SIM_ASSERT(reply_to.kind == REPLY_TO_PROXY && reply_to.slot < proxy->call_slots.capacity,
               "an answer to the proxy names one of its calls");
    ProxyCall *call = &proxy->calls[reply_to.slot];
    return call->serial != 0 && reply_serial(call) == reply_to.serial ? call : NULL;
}

/* ------------------------------------------------------------------ calls */

static uint32_t call_alloc(World *world, const Message *request)
{
    Proxy *proxy = &world->proxy;
    Message copy = *request; /* request may be a call's, in the pool the take grows */
    uint32_t slot = slot_pool_take(&proxy->call_slots, &proxy->calls, sizeof *proxy->calls);
    proxy->calls[slot] = (ProxyCall){
        .request = copy,
        .serial = ++proxy->next_serial,
        .timer = EVENT_ID_NONE,
    };
    world_operation_ref(world, copy.operation);
    return slot;
}

static void call_release(World *world, uint32_t slot)
{
    Proxy *proxy = &world->proxy;
    ProxyCall *call = &proxy->calls[slot];
    uint64_t operation = call->request.operation;
    sim_cancel(world->sim, call->timer);
    call->serial = 0;
    slot_pool_give(&proxy->call_slots, slot);
    world_operation_unref(world, operation);
}

/* ------------------------------------------------------------------ its process */

/* The settings of the proxy whose node (one of its instances) a request reached. */
static const ProxySpec *spec_at(const World *world, uint32_t node)
{
    SIM_ASSERT(world->nodes[node].kind == NODE_PROXY, "a proxy's call reached a proxy");
    return scenario_proxy(&world->scenario, world->proxy.processes[world->nodes[node].actor].proxy);
}

static ProxyProcess *process_at(World *world, uint32_t node)
{
    return &world->proxy.processes[world->nodes[node].actor];
}

/* The client's connection closes with no answer: the client reads a reset. */
static void reset_client(World *world, const Message *request)
{
    Message answer = message_answer(request, HOP_RESPONSE, SERVER_STATUS_RESET, request->operation);
    answer.reply_to = (ReplyTo){0};
    network_send(world, &answer);
}

/* Whether the proxy's process crashes at point, with call's request in hand: a draw about
 * the request (fault proxy-crash), while crashes are left. */
static bool crashes_at(World *world, const ProxyCall *call, CrashPoint point)
{
    uint32_t node = call->request.target;
    const CrashSpec *crash = &spec_at(world, node)->crash;
    if (crash->point != point || crash->prob <= 0)
        return false;
    if (crash->max_crashes > 0 && process_at(world, node)->crashes >= crash->max_crashes)
        return false;
    return world_chance_about(world, DRAW_PROXY_CRASH, &call->request, crash->prob);
}

static void call_release(World *world, uint32_t slot);

/* The process dies: every call it carries ends in a reset to its client (a try already sent
 * runs at the server all the same), and it is down until restart_ms later. */
static void crash(World *world, uint32_t node, CrashPoint point, uint64_t operation)
{
    ProxyProcess *process = process_at(world, node);
    process->down = true;
    process->crashes++;
    world->metrics.proxy_crashes++;
    world_service_metrics(world, node)->crashes++;
    if (world_tracing(world))
        world_trace(world, node, TRACE_CRASH, operation, 0, point);
    Proxy *proxy = &world->proxy;
    for (uint32_t slot = 0; slot < proxy->call_slots.capacity; slot++) {
        if (proxy->calls[slot].serial == 0 || proxy->calls[slot].request.target != node)
            continue;
        reset_client(world, &proxy->calls[slot].request);
        call_release(world, slot);
    }
    sim_schedule_in(world->sim, sim_time_us_from_ms(spec_at(world, node)->crash.restart_ms),
                    EVENT_NODE_TIMER, node, 0);
}

/* Its only timer: the restart after a crash. */
static void proxy_on_timer(World *world, uint32_t node, uint64_t arg)
{
    (void)arg;
    process_at(world, node)->down = false;
    if (world_tracing(world))
        world_trace(world, node, TRACE_RESTART, TRACE_NO_OPERATION, 0, 0);
}

/* ------------------------------------------------------------------ its instances */

/* The instance of a proxy of several a client's request goes to: its balancer's pick
 * (balancer.c), or with balancer_retry the next instance that is up when that one is down.
 * The request's target is the proxy's node, its first instance's. */
uint32_t proxy_route(World *world, const Message *request)
{
    const WorldNode *service = &world->nodes[request->target];
    ProxyProcess *first = &world->proxy.processes[service->actor];
    const ProxySpec *spec = scenario_proxy(&world->scenario, first->proxy);
    uint32_t count = service->instance_count;
    uint32_t pick = balancer_pick(world, spec->balancer, request, count, &first->balancer_turn);
    if (spec->balancer_retry == BALANCER_RETRY_CONNECT_FAILURE && first[pick].down) {
        for (uint32_t k = 1; k < count; k++) { /* the next instance that is up, in order */
            uint32_t next = (pick + k) % count;
            if (!first[next].down) {
                world->metrics.balancer_retries++;
                return first[next].node;
            }
        }
    }
    return first[pick].node;
}

bool proxy_is_first_instance(const World *world, uint32_t node)
{
    const ProxyProcess *process = &world->proxy.processes[world->nodes[node].actor];
    return process->node == world->proxy_nodes[process->proxy];
}

/* ------------------------------------------------------------------ tries and answers */

static void send_try(World *world, uint32_t slot)
{
    ProxyCall *call = &world->proxy.calls[slot];
    uint32_t node = call->request.target; /* the proxy it reached */
    const ProxySpec *spec = spec_at(world, node);
    call->tries++;
    if (call->tries > 1) {
        world->metrics.proxy_retries++;
        world_service_metrics(world, node)->retries++;
        if (world_tracing(world))
            world_trace_about(world, node, TRACE_PROXY_RETRY, &call->request, call->tries, 0);
    }
    Message forward = call->request;
    forward.source = node;
    forward.target = world->server_node;
    forward.key = spec->forwards_key ? call->request.key : 0;
    /* Each try is a message of its own, with a fate of its own. */
    forward.lineage = lineage_of_repeat(call->request.lineage, call->tries);
    forward.reply_to =
        (ReplyTo){.kind = REPLY_TO_PROXY, .slot = slot, .serial = reply_serial(call)};
    server_send_try(world, &forward, spec->retry_host == RETRY_HOST_OTHER ? &call->tried : NULL);
    call->timer = sim_schedule_in(world->sim, sim_time_us_from_ms(spec->per_try_timeout_ms),
                                  EVENT_PROXY_TRY_TIMEOUT, call->tries, slot);
    if (call->tries == 1 && crashes_at(world, call, CRASH_AFTER_FORWARD))
        crash(world, node, CRASH_AFTER_FORWARD, call->request.operation); /* ends the call */
}

/* The call ends: the client gets status, as the proxy saw it. */
static void answer_client(World *world, uint32_t slot, int status, uint64_t response_of)
{
    const ProxyCall *call = &world->proxy.calls[slot];
    SIM_ASSERT(world->nodes[call->request.target].kind == NODE_PROXY,
               "a call is a request to a proxy");
    Message answer = message_answer(&call->request, HOP_RESPONSE, status, response_of);
    answer.reply_to = (ReplyTo){0};
    network_send(world, &answer);
    call_release(world, slot);
}

static bool tries_left(const World *world, const ProxyCall *call)
{
    return call->tries <= spec_at(world, call->request.target)->retries;
}

void proxy_on_request(World *world, const Message *request)
{
    if (process_at(world, request->target)->down) { /* a closed port */
        world_service_metrics(world, request->target)->refused++;
        if (world_tracing(world)) /* the reset's cause, as a down server's refusal says */
            world_trace_about(world, request->target, TRACE_REFUSED_DOWN, request, 0, 0);
        reset_client(world, request);
        return;
    }
    world_service_takes_in(world, world_service_metrics(world, request->target), request->target,
                           request->operation);
    uint32_t slot = call_alloc(world, request);
    SimTimeUs service =
        distribution_sample_ms_as_us(&spec_at(world, request->target)->service_ms,
                                     world_draw_about(world, DRAW_PROXY_SERVICE, request));
    world->proxy.calls[slot].timer =
        sim_schedule_in(world->sim, service, EVENT_PROXY_FORWARD, 0, slot);
}

void proxy_on_forward(World *world, uint32_t slot)
{
    ProxyCall *call = &world->proxy.calls[slot];
    call->timer = EVENT_ID_NONE;
    if (crashes_at(world, call, CRASH_BEFORE_FORWARD)) {
        crash(world, call->request.target, CRASH_BEFORE_FORWARD, call->request.operation);
        return;
    }
    send_try(world, slot);
}

void proxy_on_response(World *world, const Message *response)
{
    ProxyCall *call = call_named(world, response->reply_to);
    if (call == NULL)
        return; /* the answer to an abandoned try */
    const ProxySpec *spec = spec_at(world, call->request.target);
    uint32_t slot = response->reply_to.slot;
    sim_cancel(world->sim, call->timer);
    call->timer = EVENT_ID_NONE;
    bool retryable =
        (response->status >= 500 && spec->on_5xx) || (response->status == 409 && spec->on_409);
    if (retryable && tries_left(world, call)) {
        send_try(world, slot);
        return;
    }
    answer_client(world, slot, response->status, response->response_of);
}

void proxy_on_try_timeout(World *world, uint32_t slot, uint32_t try_number)
{
    ProxyCall *call = &world->proxy.calls[slot];
    SIM_ASSERT(call->serial != 0 && call->tries == try_number,
               "a pending try timeout belongs to the call's current try");
    call->timer = EVENT_ID_NONE;
    world->metrics.proxy_timeouts++;
    if (world_tracing(world))
        world_trace_about(world, call->request.target, TRACE_PROXY_TIMEOUT, &call->request,
                          call->tries, 0);
    if (spec_at(world, call->request.target)->on_timeout && tries_left(world, call)) {
        send_try(world, slot);
        return;
    }
    answer_client(world, slot, 504, call->request.operation);
}

/* ------------------------------------------------------------------ life */

void proxy_init(World *world)
{
    slot_pool_init(&world->proxy.call_slots, 64);
}

void proxy_release(World *world)
{
    free(world->proxy.calls);
    slot_pool_release(&world->proxy.call_slots);
}

uint64_t proxy_memory_bytes(const World *world)
{
    const SlotPool *slots = &world->proxy.call_slots;
    return (uint64_t)slots->capacity * sizeof *world->proxy.calls + slot_pool_memory_bytes(slots);
}

/* ------------------------------------------------------------------ its node kind's model */

const NodeKindModel node_model_proxy = {
    .init = proxy_init,
    .release = proxy_release,
    .on_timer = proxy_on_timer,
    .on_message =
        {
            [MESSAGE_REQUEST] = proxy_on_request,
            [MESSAGE_RESPONSE] = proxy_on_response,
        },
};
