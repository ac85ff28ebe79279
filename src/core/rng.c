/* splitmix64 for mixing and seeding, xoshiro256** for streams (both by Vigna, public
 * domain reference code at prng.di.unimi.it). Everything is integer arithmetic on uint64_t,
 * so a seed gives the same numbers on every compiler and platform. */
#include "rng.h"

#include <stddef.h>

#include "sim_assert.h"

#define GOLDEN_GAMMA 0x9e3779b97f4a7c15ull /* splitmix64's increment, 2^64 / phi, odd */

uint64_t rng_hash_prefix(uint64_t seed, uint64_t purpose)
{
    return rng_absorb(rng_mix64(seed + GOLDEN_GAMMA), purpose, 0xd1b54a32d192ed03ull);
}

uint64_t rng_hash(uint64_t seed, uint64_t purpose, uint64_t a, uint64_t b, uint64_t c)
{
    return rng_hash_with_prefix(rng_hash_prefix(seed, purpose), a, b, c);
}

/* FNV-1a (64-bit) turns the name into a number; its weak avalanche does not matter because
 * the result goes through the splitmix finaliser together with the master seed. */
uint64_t rng_seed_derive(uint64_t master, const char *name)
{
    SIM_ASSERT(name != NULL, "stream name is required");
    uint64_t fnv = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)name; *p != '\0'; p++) {
        fnv ^= *p;
        fnv *= 0x100000001b3ull;
    }
    return rng_absorb(rng_mix64(master + GOLDEN_GAMMA), fnv, 0x9fb21c651e98df25ull);
}

/* Four consecutive splitmix64 outputs. The finaliser is a bijection and the four inputs
 * differ, so at most one word is zero and the state is never all zero (the one state
 * xoshiro cannot leave). */
void rng_init(Rng *rng, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        seed += GOLDEN_GAMMA;
        rng->state[i] = rng_mix64(seed);
    }
}

static uint64_t rotate_left(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(Rng *rng)
{
    uint64_t *s = rng->state;
    uint64_t result = rotate_left(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotate_left(s[3], 45);
    return result;
}

/* Rejection (as in OpenBSD's arc4random_uniform): drop the lowest 2^64 mod bound raw
 * values, so the rest split evenly into bound classes. Lemire's multiply-shift would avoid
 * the division but needs a 128-bit product; a second code path for compilers without one
 * would give other numbers on other machines, which determinism forbids. */
uint64_t rng_below(Rng *rng, uint64_t bound)
{
    SIM_ASSERT(bound > 0, "rng_below needs a positive bound");
    uint64_t threshold = (0 - bound) % bound; /* == 2^64 mod bound */
    for (;;) {
        uint64_t x = rng_next(rng);
        if (x >= threshold)
            return x % bound;
    }
}

/* Always consumes a draw, even for 0 or 1e6 ppm, so the stream's position does not depend
 * on the probabilities a scenario sets. */
bool rng_chance_ppm(Rng *rng, uint32_t ppm)
{
    return rng_below(rng, 1000000) < ppm;
}

double rng_unit(Rng *rng)
{
    return rng_unit_from_bits(rng_next(rng));
}
