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

/* Counter-based draws. */
uint64_t rng_mix64(uint64_t x); /* splitmix64 finaliser: a bijection */
uint64_t rng_hash(uint64_t seed, uint64_t purpose, uint64_t a, uint64_t b, uint64_t c);
/* rng_hash in two steps, for callers that draw many times with one (seed, purpose):
 * rng_hash(s, p, a, b, c) == rng_hash_with_prefix(rng_hash_prefix(s, p), a, b, c). */
uint64_t rng_hash_prefix(uint64_t seed, uint64_t purpose);
uint64_t rng_hash_with_prefix(uint64_t prefix, uint64_t a, uint64_t b, uint64_t c);
uint64_t rng_seed_derive(uint64_t master, const char *name); /* stable, by name */
double rng_unit_from_bits(uint64_t bits);                    /* [0, 1), 53 bits */

/* Streams. */
void rng_init(Rng *rng, uint64_t seed);
uint64_t rng_next(Rng *rng);
uint64_t rng_below(Rng *rng, uint64_t bound); /* uniform in [0, bound), unbiased; bound > 0 */
bool rng_chance_ppm(Rng *rng, uint32_t ppm);  /* true with probability ppm / 1e6 */
double rng_unit(Rng *rng);                    /* [0, 1) */

#endif
