/* The balancer in front of a service's instances (a server's, a proxy's): which instance a
 * request goes to. Round-robin turns over every request the service receives; random draws
 * from the request copy's identity, so it picks the same instance in every mode; key-hash
 * sends every retry with one key to one instance. A request without a key goes in turn: one
 * whose client sends none, one a proxy stripped of it, and every request in the modes that
 * send no key (a request's key is drawn in every mode, for the draws named by it, but only
 * the idempotent mode puts it in a header). The service skips instances that are down
 * (balancer_retry), since only it knows which are. */
#include "world_internal.h"

uint32_t balancer_pick(World *world, BalancerPolicy policy, const Message *request, uint32_t count,
                       uint32_t *turn)
{
    if (policy == BALANCER_KEY_HASH && (request->key == 0 || world->mode != MODE_IDEMPOTENT))
        policy = BALANCER_ROUND_ROBIN; /* no key header to hash */
    uint32_t pick = 0;
    switch (policy) {
    case BALANCER_KEY_HASH:
        pick = (uint32_t)(rng_mix64(request->key) % count);
        break;
    case BALANCER_ROUND_ROBIN:
        pick = *turn;
        *turn = (*turn + 1) % count;
        break;
    case BALANCER_RANDOM:
        pick = (uint32_t)(world_draw_about(world, DRAW_BALANCER, request) % count);
        break;
    }
    return pick;
}
