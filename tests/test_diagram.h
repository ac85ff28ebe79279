/* A sequence diagram of a whole run, as the SVG and the view build it: the model tests read
 * its spans and marks. */
#ifndef IDEMSIM_TEST_DIAGRAM_H
#define IDEMSIM_TEST_DIAGRAM_H

#include "diagram.h"
#include "test_world.h"

static inline void test_diagram_feed(void *context, const TraceRecord *record)
{
    diagram_add(context, record, 0);
}

/* The diagram of scenario's run in mode, with its windows (key TTLs, ack timers) and its
 * broker's rules, its lanes
 * opened as records name them, keeping up to items_max items. Destroy it when done. */
static inline Diagram *test_diagram_of_run(const Scenario *scenario, Mode mode, uint32_t items_max)
{
    Diagram *diagram = diagram_create(mode, items_max, 0);
    ck_assert_ptr_nonnull(diagram);
    diagram_open_lanes(diagram, true);
    DiagramWindows windows = diagram_windows_of(scenario, mode);
    diagram_set_windows(diagram, &windows);
    diagram_set_broker_rules(diagram, scenario);
    World *world = world_create(scenario, mode, scenario->seed,
                                (TraceSink){test_diagram_feed, diagram}, (WorldLimits){0});
    world_run(world);
    world_destroy(world);
    return diagram;
}

#endif
