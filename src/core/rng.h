/* Deterministic random numbers. Two kinds of use (DESIGN §3):
 *  - a fate that must be the same in every mode is drawn with rng_hash() from
 *    (seed, purpose, ids), never from a shared sequential stream;
 *  - a component that needs several numbers seeds its own Rng from such a hash.
 * Integer core (splitmix64, xoshiro256**); floats only at the edges, computed from
 * 53 random bits, so results do not depend on the compiler. */
#ifndef IDEMSIM_RNG_H
#define IDEMSIM_RNG_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint64_t state[4];
} Rng;

/* Counter-based draws. The three used for every draw are inline, as the model makes
 * several draws per event. */

/* splitmix64 finaliser: a bijection */
static inline uint64_t rng_mix64(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* One link of the hash chain. For a fixed h it is a bijection of x, and for a fixed x a
 * bijection of h, so changing any single argument of rng_hash always changes the result.
 * A different odd constant per position keeps rng_hash(s, p, a, b, c) and the same call
 * with arguments shifted to other positions apart; the chain itself makes order matter. */
static inline uint64_t rng_absorb(uint64_t h, uint64_t x, uint64_t position_constant)
{
    return rng_mix64((h ^ x) + position_constant);
}

uint64_t rng_hash(uint64_t seed, uint64_t purpose, uint64_t a, uint64_t b, uint64_t c);
/* rng_hash in two steps, for callers that draw many times with one (seed, purpose):
 * rng_hash(s, p, a, b, c) == rng_hash_with_prefix(rng_hash_prefix(s, p), a, b, c). */
uint64_t rng_hash_prefix(uint64_t seed, uint64_t purpose);
static inline uint64_t rng_hash_with_prefix(uint64_t prefix, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t h = rng_absorb(prefix, a, 0xaef17502108ef2d9ull);
    h = rng_absorb(h, b, 0xf58b9a1e2c6d3e97ull);
    return rng_absorb(h, c, 0x8cb92ba72f3d8dd7ull);
}

uint64_t rng_seed_derive(uint64_t master, const char *name); /* stable, by name */

/* [0, 1) from the top 53 bits scaled by 2^-53: every result is exactly representable, so
 * the conversion is the same everywhere and 1.0 is never returned. */
static inline double rng_unit_from_bits(uint64_t bits)
{
    return (double)(bits >> 11) * 0x1.0p-53;
}

/* Streams. */
void rng_init(Rng *rng, uint64_t seed);
uint64_t rng_next(Rng *rng);
uint64_t rng_below(Rng *rng, uint64_t bound); /* uniform in [0, bound), unbiased; bound > 0 */
bool rng_chance_ppm(Rng *rng, uint32_t ppm);  /* true with probability ppm / 1e6 */
double rng_unit(Rng *rng);                    /* [0, 1) */

#endif
