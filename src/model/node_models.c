/* The model's registry of node kinds (issue 21, step 8): what each kind does, its init and
 * release, its handler per message kind, for its jobs' events and for its own timers
 * (EVENT_NODE_TIMER), registered once here, so the world's build, teardown and dispatch
 * (world.c) never name a kind. What a kind is (its
 * name, fields, words, lane) is its descriptor's, src/scenario/node_kind.c.
 *
 * A new kind defines its model beside its handlers, in its own file
 * (`const NodeKindModel cache_model = {...};`, its handlers static there), and adds two lines
 * here: its declaration and its row in node_models. The kinds below keep their rows here, as
 * their handlers are shared with other files. */
#include "world_internal.h"

/* ------------------------------------------------------------------ adapters */

/* A server instance's side of the messages it takes: the instance is the message's target. */
void server_takes_request(World *world, const Message *request)
{
    server_on_request(world, server_at(world, request->target), request);
}

static void server_takes_response(World *world, const Message *answer)
{
    if (world_is_server(world, answer->source)) { /* the server its call step called */
        if (!server_at(world, answer->target)->down)
            server_charge_on_reply(world, answer);
    } else if (answer->reply_to.kind == REPLY_TO_OUTBOX) { /* a relayed receipt's confirm */
        server_charge_on_event_confirm(world, answer);
    }
    /* else: the confirm of a receipt published directly, which nobody waits for */
}

static void server_takes_charge_reply(World *world, const Message *reply)
{
    if (!server_at(world, reply->target)->down)
        server_charge_on_reply(world, reply);
}

static void server_takes_status_query(World *world, const Message *query)
{
    server_on_status_query(world, server_at(world, query->target), query);
}

/* A broker's confirm of a receipt the consumers published directly: the receipt leaves with
 * the change (ledger_apply) named after the node that applied it, so its confirm comes back
 * there, and nobody waits for it, as nobody waits for the server's own direct confirm. (Such
 * confirms used to go where a client's answer goes, and a client still waiting for its
 * payment's answer took the broker's 200 for it.) */
static void receipt_confirm_unwaited(World *world, const Message *confirm)
{
    (void)world;
    (void)confirm;
}

/* What comes back to the consumers as an answer: a called server's, to their call step (a
 * ledger service), or a broker's confirm of a receipt, which nobody waits for. */
static void consumers_take_answer(World *world, const Message *answer)
{
    if (world_is_server(world, answer->source))
        consumers_on_charge_reply(world, answer);
    else
        receipt_confirm_unwaited(world, answer);
}

/* ------------------------------------------------------------------ the kinds */

static const NodeKindModel client_group_model = {
    .init = client_init,
    .on_message = {[MESSAGE_RESPONSE] = client_on_response},
};

static const NodeKindModel server_model = {
    .init = server_init,
    .release = server_release,
    .on_message =
        {
            [MESSAGE_REQUEST] = server_takes_request,
            [MESSAGE_RESPONSE] = server_takes_response,
            [MESSAGE_CHARGE_REPLY] = server_takes_charge_reply,
            [MESSAGE_STATUS_QUERY] = server_takes_status_query,
        },
    .on_job_reserve = server_on_job_reserve,
    .on_charge_timeout = server_charge_on_timeout,
    .on_charge_retry = server_charge_on_retry,
};

/* The gateway's one timer: the acquirer's settlement file arrives (C35). */
static void gateway_on_timer(World *world, uint32_t node, uint64_t arg)
{
    (void)node;
    (void)arg;
    gateway_on_settlement(world);
}

static const NodeKindModel gateway_model = {
    .init = gateway_init,
    .release = gateway_release,
    .on_message =
        {
            [MESSAGE_CHARGE] = gateway_on_charge_arrive,
            [MESSAGE_REFUND] = gateway_on_charge_arrive,
            [MESSAGE_STATUS_QUERY] = gateway_on_status_query,
        },
    .on_timer = gateway_on_timer,
};

static const NodeKindModel broker_model = {
    .init = broker_init,
    .release = broker_release,
    .on_message =
        {
            [MESSAGE_REQUEST] = broker_on_publish,
            [MESSAGE_ACK] = broker_on_ack,
            [MESSAGE_PROGRESS] = broker_on_progress,
            [MESSAGE_NACK] = broker_on_nack,
        },
};

static const NodeKindModel consumers_model = {
    .init = consumers_init,
    .release = consumers_release,
    .on_message =
        {
            [MESSAGE_DELIVERY] = consumers_on_delivery,
            [MESSAGE_CHARGE_REPLY] = consumers_on_charge_reply,
            [MESSAGE_RESPONSE] = consumers_take_answer,
        },
    .on_job_reserve = consumers_on_job_reserve,
    .on_charge_timeout = consumers_on_charge_timeout,
    .on_charge_retry = consumers_on_charge_retry,
};

static const NodeKindModel proxy_model = {
    .init = proxy_init,
    .release = proxy_release,
    .on_message =
        {
            [MESSAGE_REQUEST] = proxy_on_request,
            [MESSAGE_RESPONSE] = proxy_on_response,
        },
};

/* Never a link's end (requests to it are not messages); its life is its user's. */
static const NodeKindModel key_store_model = {0};

/* ------------------------------------------------------------------ the registry */

const NodeKindModel *const node_models[NODE_KIND_COUNT] = {
    [NODE_CLIENT_GROUP] = &client_group_model, [NODE_SERVER] = &server_model,
    [NODE_GATEWAY] = &gateway_model,           [NODE_BROKER] = &broker_model,
    [NODE_CONSUMERS] = &consumers_model,       [NODE_PROXY] = &proxy_model,
    [NODE_KEY_STORE] = &key_store_model,
};
