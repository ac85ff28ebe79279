/* The layout. Panes stand side by side as columns; inside a column the panels stack in the
 * order a learner reads them: what happened to the money (counters, balances), why (the
 * key store), how (the sequence diagram), and the last notable event as a caption. A single
 * focused pane on a landscape frame puts the panels in a sidebar and gives the diagram the
 * rest. Lengths are in units of a 1280x720 frame. */
#include "view_layout.h"

#include <string.h>

#define MARGIN 8.0f
#define GAP 6.0f
#define TITLE_HEIGHT 40.0f
#define STATUS_HEIGHT 28.0f
#define HEADER_HEIGHT 44.0f
#define COUNTER_HEIGHT 84.0f
#define BALANCES_HEIGHT 54.0f
#define KEY_HEADER_HEIGHT 22.0f
#define KEY_ROW_HEIGHT 19.0f
#define NARRATION_HEIGHT 54.0f
#define NARROW_KEY_ROWS 4
#define PROJECTOR_KEY_ROWS 2
/* On a projector the diagram's words grow by this much: 11 px at 720p becomes 21 px at
 * 1080p, which the back row of a classroom reads (the issue asked for 18 px and more). */
#define PROJECTOR_LABEL_SCALE 1.25f

int view_layout_px(const ViewLayout *layout, float length)
{
    int px = (int)(length * layout->unit + 0.5f);
    return px > 0 ? px : 1;
}

bool view_layout_contains(ViewRect rect, int x, int y)
{
    return x >= rect.x && y >= rect.y && x < rect.x + rect.w && y < rect.y + rect.h;
}

static ViewRect rect_make(int x, int y, int w, int h)
{
    return (ViewRect){x, y, w > 0 ? w : 0, h > 0 ? h : 0};
}

/* Cuts a strip of height h off the top of *area and returns it (with a gap after it). */
static ViewRect take_top(const ViewLayout *layout, ViewRect *area, float height)
{
    int h = view_layout_px(layout, height);
    if (h > area->h)
        h = area->h;
    ViewRect strip = rect_make(area->x, area->y, area->w, h);
    int used = h + view_layout_px(layout, GAP);
    area->y += used;
    area->h = area->h > used ? area->h - used : 0;
    return strip;
}

static ViewRect take_bottom(const ViewLayout *layout, ViewRect *area, float height)
{
    int h = view_layout_px(layout, height);
    if (h > area->h)
        h = area->h;
    ViewRect strip = rect_make(area->x, area->y + area->h - h, area->w, h);
    int used = h + view_layout_px(layout, GAP);
    area->h = area->h > used ? area->h - used : 0;
    return strip;
}

/* A strip of counters: one row in a column, two rows in the wide layout's sidebar. */
static void split_counters(const ViewLayout *layout, ViewPaneLayout *pane, int count)
{
    ViewRect area = pane->counter_area;
    int columns = pane->wide ? (count + 1) / 2 : count;
    int gap = view_layout_px(layout, GAP);
    int rows = (count + columns - 1) / columns;
    int w = (area.w - gap * (columns - 1)) / columns;
    int h = (area.h - gap * (rows - 1)) / rows;
    memset(pane->counters, 0, sizeof pane->counters);
    pane->counter_count = count;
    for (int i = 0; i < count; i++) {
        int column = i % columns, row = i / columns;
        pane->counters[i] = rect_make(area.x + column * (w + gap), area.y + row * (h + gap), w, h);
    }
}

void view_layout_set_counters(ViewLayout *layout, int count)
{
    count = count > VIEW_COUNTERS ? VIEW_COUNTERS_MAX : VIEW_COUNTERS;
    for (int p = 0; p < layout->pane_count; p++) {
        if (layout->panes[p].counter_count != count)
            split_counters(layout, &layout->panes[p], count);
    }
}

static void narrow_pane(const ViewLayout *layout, ViewPaneLayout *pane)
{
    int padding = view_layout_px(layout, MARGIN);
    ViewRect area = rect_make(pane->pane.x + padding, pane->pane.y + padding,
                              pane->pane.w - 2 * padding, pane->pane.h - 2 * padding);
    pane->header = take_top(layout, &area, HEADER_HEIGHT);
    pane->counter_area = take_top(layout, &area, COUNTER_HEIGHT);
    split_counters(layout, pane, VIEW_COUNTERS);
    pane->balances = take_top(layout, &area, BALANCES_HEIGHT);
    /* on a projector the diagram gets the height the key store gives up */
    pane->key_rows = layout->projector ? PROJECTOR_KEY_ROWS : NARROW_KEY_ROWS;
    pane->keys =
        take_top(layout, &area, KEY_HEADER_HEIGHT + KEY_ROW_HEIGHT * (float)(pane->key_rows + 1));
    pane->narration = take_bottom(layout, &area, NARRATION_HEIGHT);
    pane->sequence = area;
}

static void wide_pane(const ViewLayout *layout, ViewPaneLayout *pane)
{
    int padding = view_layout_px(layout, MARGIN);
    int inner_w = pane->pane.w - 2 * padding;
    int side_w = inner_w * 36 / 100;
    ViewRect side = rect_make(pane->pane.x + padding, pane->pane.y + padding, side_w,
                              pane->pane.h - 2 * padding);
    int gap = view_layout_px(layout, GAP) * 2;
    ViewRect main = rect_make(side.x + side_w + gap, side.y, inner_w - side_w - gap, side.h);
    pane->wide = true;
    pane->header = take_top(layout, &side, HEADER_HEIGHT);
    pane->counter_area = take_top(layout, &side, COUNTER_HEIGHT * 2);
    split_counters(layout, pane, VIEW_COUNTERS);
    pane->balances = take_top(layout, &side, BALANCES_HEIGHT);
    pane->keys = side;
    int rows = (int)((side.h / layout->unit - KEY_HEADER_HEIGHT) / KEY_ROW_HEIGHT) - 1;
    pane->key_rows = rows < 1 ? 1 : rows > 12 ? 12 : rows;
    pane->narration = take_bottom(layout, &main, NARRATION_HEIGHT);
    pane->sequence = main;
}

void view_layout_compute(ViewLayout *layout, int width, int height, int pane_count, bool projector)
{
    memset(layout, 0, sizeof *layout);
    layout->width = width;
    layout->height = height;
    layout->projector = projector;
    layout->label_scale = projector ? PROJECTOR_LABEL_SCALE : 1.0f;
    float unit_h = (float)height / 720.0f, unit_w = (float)width / 1280.0f;
    layout->unit = unit_h < unit_w ? unit_h : unit_w;
    if (layout->unit < 0.6f)
        layout->unit = 0.6f; /* below this text stops being text */
    layout->pane_count = pane_count < 1 ? 1 : pane_count > MODE_COUNT ? MODE_COUNT : pane_count;
    int margin = view_layout_px(layout, MARGIN);
    layout->title = rect_make(0, 0, width, view_layout_px(layout, TITLE_HEIGHT));
    int status_h = view_layout_px(layout, STATUS_HEIGHT);
    layout->status = rect_make(0, height - status_h, width, status_h);
    int top = layout->title.h + margin / 2;
    int bottom = layout->status.y - margin / 2;
    int column_w = (width - margin * (layout->pane_count + 1)) / layout->pane_count;
    bool wide = layout->pane_count == 1 && width * 4 >= height * 5;
    for (int p = 0; p < layout->pane_count; p++) {
        ViewPaneLayout *pane = &layout->panes[p];
        pane->pane = rect_make(margin + p * (column_w + margin), top, column_w, bottom - top);
        if (wide)
            wide_pane(layout, pane);
        else
            narrow_pane(layout, pane);
    }
}

bool view_layout_region(int width, int height, int pane_count, int pane, ViewRegion region,
                        ViewRect *rect)
{
    ViewLayout layout;
    view_layout_compute(&layout, width, height, pane_count, false);
    if (pane < 0 || pane >= layout.pane_count || region < 0 || region >= VIEW_REGION_COUNT)
        return false;
    const ViewPaneLayout *p = &layout.panes[pane];
    switch (region) {
    case VIEW_REGION_PANE:
        *rect = p->pane;
        break;
    case VIEW_REGION_HEADER:
        *rect = p->header;
        break;
    case VIEW_REGION_COUNTER_OK:
        *rect = p->counters[0];
        break;
    case VIEW_REGION_COUNTER_DOUBLE:
        *rect = p->counters[1];
        break;
    case VIEW_REGION_COUNTER_LOST:
        *rect = p->counters[2];
        break;
    case VIEW_REGION_COUNTER_PHANTOM:
        *rect = p->counters[3];
        break;
    case VIEW_REGION_BALANCES:
        *rect = p->balances;
        break;
    case VIEW_REGION_KEY_STORE:
        *rect = p->keys;
        break;
    case VIEW_REGION_SEQUENCE:
        *rect = p->sequence;
        break;
    case VIEW_REGION_NARRATION:
        *rect = p->narration;
        break;
    case VIEW_REGION_COUNT:
        return false;
    }
    return true;
}

float view_layout_coordinate(double pixels)
{
    const double limit = 16777216.0; /* 2^24 */
    if (!(pixels > -limit))          /* NaN too: the top of the world, not undefined behaviour */
        return (float)-limit;
    return pixels < limit ? (float)pixels : (float)limit;
}
