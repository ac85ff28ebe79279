/* Keys as the server's key store compares them (C30: uniqueness that is not). A key travels
 * as text: a retry may carry it spelled otherwise than its first attempt (upper-cased or
 * re-serialised by another library on the retry path: Message.key_respelled), and the
 * store's key column compares either the bytes or a normalised form (case folded, as a
 * case-insensitive collation does). Bytes tell the two spellings of one key apart: the
 * retry reserves a row of its own and runs again. Normalised, they are one key, and so are
 * two different base62 keys that differ only in their letters' case: the chance two random
 * base62 keys of k bits fold together is that of keys of 0.852 k bits (each of the 52
 * letters folds with its other case; -log2(114/3844) / log2(62) = 0.852), a hex key loses
 * nothing. The model keeps the key an integer: a respelled spelling is a fixed mix of it,
 * the folded key its low 0.852 k bits. */
#include "world_internal.h"

#define RESPELLED_SALT 0x9e3779b97f4a7c15ull
#define BASE62_FOLDED_PER_MILLE 852

uint32_t key_spelling_folded_bits(uint32_t key_bits)
{
    return (uint32_t)((uint64_t)key_bits * BASE62_FOLDED_PER_MILLE / 1000);
}

uint64_t key_spelling_stored(const World *world, const IdempotencySpec *store,
                             const Message *request)
{
    uint64_t key = request->key;
    if (key == 0)
        return 0;
    if (store->compare == KEY_COMPARE_BYTES)
        return request->key_respelled ? rng_mix64(key ^ RESPELLED_SALT) | 1 : key;
    const ClientGroupSpec *spec = world->groups[world->clients[request->client].group].spec;
    if (spec->key_alphabet != KEY_ALPHABET_BASE62)
        return key; /* a hex key's case means nothing: normalising changes no comparison */
    uint32_t bits = key_spelling_folded_bits(spec->key_bits);
    uint64_t folded = bits >= 64 ? key : key & ((1ull << bits) - 1);
    return folded != 0 ? folded : 1;
}

bool key_spelling_respelled(const World *world, const ClientGroupSpec *spec, uint64_t operation,
                            uint32_t click, uint32_t attempt)
{
    return attempt > 1 && spec->key_respelled > 0 &&
           world_draw_unit(world, DRAW_KEY_SPELLING, operation, click, attempt) <
               spec->key_respelled;
}
