/* The model's registry of node kinds (issue 21, step 8): what each kind does, its init and
 * release, its handler per message kind, for its jobs' events and for its own timers
 * (EVENT_NODE_TIMER), so a kind's own code is reached from world.c without naming the kind
 * (world_internal.h, NodeKindModel, says what world.c still names).
 * Each kind defines its model in its own file, beside its handlers
 * (`const NodeKindModel node_model_cache = {...};`); this table is made from the one list of
 * kinds (NODE_KIND_LIST, scenario.h), so a new kind adds no line here. What a kind is (its
 * name, fields, words, lane) is its descriptor's, src/scenario/node_kind.c. */
#include "world_internal.h"

#define DECLARE_MODEL(kind, name, listed) extern const NodeKindModel node_model_##name;
NODE_KIND_LIST(DECLARE_MODEL)
#undef DECLARE_MODEL

#define MODEL_ROW(kind, name, listed) [kind] = &node_model_##name,
const NodeKindModel *const node_models[NODE_KIND_COUNT] = {NODE_KIND_LIST(MODEL_ROW)};
#undef MODEL_ROW
