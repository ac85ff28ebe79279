/* The palette. Dark background, high-contrast text, and four signal colours chosen to stay
 * apart for the common colour-vision deficiencies (a bluish green against a bright red that
 * also differs in lightness, amber, a neutral grey); shapes and words repeat each meaning. */
#include "view.h"

static const uint32_t palette[VIEW_COLOR_COUNT] = {
    [VIEW_COLOR_BACKGROUND] = 0x0D1117,   [VIEW_COLOR_PANEL] = 0x161C24,
    [VIEW_COLOR_PANEL_RAISED] = 0x1F2731, [VIEW_COLOR_GRID] = 0x2B3542,
    [VIEW_COLOR_TEXT] = 0xF0F4F8,         [VIEW_COLOR_TEXT_DIM] = 0x9BA8B6,
    [VIEW_COLOR_OK] = 0x2ED3A0,           [VIEW_COLOR_DOUBLE] = 0xFF4D4D,
    [VIEW_COLOR_WARNING] = 0xFFB224,      [VIEW_COLOR_LOST] = 0x8A96A3,
    [VIEW_COLOR_MESSAGE] = 0x58B2F5,      [VIEW_COLOR_RESPONSE] = 0xC9D4E0,
};

uint32_t view_palette_rgb(ViewColor color)
{
    return color < VIEW_COLOR_COUNT ? palette[color] : 0xFF00FF;
}
