/* Connections that close before an answer, and the HTTP library that sends the request
 * again without telling the application (C32). Clients reuse kept-alive connections; the
 * server closes idle ones on its own timer, so a request may find its connection closed as
 * it arrives (stale_connections: the server never reads it), and a connection may close
 * after the handler ran and before the first byte of its answer (closes_before_answer: a
 * graceful restart, a proxy's idle timeout). The client sees the same thing either way: the
 * connection ended with no byte of an answer. Go's net/http Transport then sends the
 * request again on a new connection when the request is replayable (a GET, or any request
 * with an Idempotency-Key or X-Idempotency-Key header), trusting the key to make that safe;
 * the application sees one attempt and one answer, the server sees two requests.
 * Every request here is modelled as riding a reused connection (Go retries only on a
 * connection already used successfully), and each send of the library is a new message
 * with a fate of its own (the lineage of a repeat). */
#include "world_internal.h"

static void close_answer(World *world, uint32_t node, Message *answer, int unread)
{
    world->metrics.connection_closes++;
    answer->status = SERVER_STATUS_RESET;
    answer->retry_after_us = 0;
    if (world_tracing(world))
        world_trace_about(world, node, TRACE_CONNECTION_CLOSED, answer, unread ? 0 : 1, 0);
}

bool connection_stale_on_arrival(World *world, const Server *server, const Message *request)
{
    if (!world_chance_about(world, DRAW_STALE_CONNECTION, request, server->spec->stale_connections))
        return false;
    Message answer = message_answer(request, HOP_RESPONSE, SERVER_STATUS_RESET, request->operation);
    close_answer(world, server->node, &answer, 1);
    network_send(world, &answer);
    return true;
}

void connection_close_before_answer(World *world, const Server *server, Message *answer)
{
    if (answer->hop == HOP_RESPONSE && world_chance_about(world, DRAW_CLOSE_BEFORE_ANSWER, answer,
                                                          server->spec->closes_before_answer))
        close_answer(world, server->node, answer, 0);
}

/* Go's (*Request).isReplayable for a POST: only with an idempotency key header. */
static bool replayable(const ClientGroupSpec *spec, const ClickState *state)
{
    return spec->library_replays == LIBRARY_REPLAYS_ANY || state->key != 0;
}

bool connection_library_replays(World *world, const ClientGroupSpec *spec, ClickState *state,
                                const Message *answer)
{
    if (answer->status != SERVER_STATUS_RESET || state->library_tries >= spec->library_retries ||
        !replayable(spec, state))
        return false;
    state->library_tries++;
    world->metrics.library_retries++;
    if (world_tracing(world))
        world_trace_client(world, answer->client, TRACE_LIBRARY_RETRY, answer->operation,
                           answer->click, answer->attempt, state->library_tries, 0);
    return true;
}
