/* The canvas: fonts, colours and shapes. Every shape becomes triangles in one vertex batch
 * sent with SDL_RenderGeometry, flushed before text (a texture) is drawn so that order on
 * screen is the order of the calls. SDL2's own lines are one pixel wide and its rectangles
 * square; a projector needs thicker strokes and the batch keeps thousands of them cheap. */
#include "view_canvas.h"

#include "scenario_library.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PI 3.14159265f

/* ------------------------------------------------------------------ fonts */

typedef struct {
    const char *file;
    float size_px; /* at 1280x720 */
} FontSpec;

static const FontSpec font_specs[VIEW_FONT_COUNT] = {
    [VIEW_FONT_TITLE] = {"DejaVuSans-Bold.ttf", 19},
    [VIEW_FONT_HEADER] = {"DejaVuSans-Bold.ttf", 21},
    [VIEW_FONT_NUMBER] = {"DejaVuSans-Bold.ttf", 34},
    [VIEW_FONT_NUMBER_SMALL] = {"DejaVuSans-Bold.ttf", 24},
    [VIEW_FONT_LABEL] = {"DejaVuSans-Bold.ttf", 12},
    [VIEW_FONT_BODY] = {"DejaVuSans.ttf", 16},
    [VIEW_FONT_SMALL] = {"DejaVuSans.ttf", 13},
    [VIEW_FONT_TINY] = {"DejaVuSans.ttf", 11},
    [VIEW_FONT_MONO] = {"DejaVuSansMono.ttf", 13},
};

static bool has_fonts(const char *dir)
{
    char path[1200];
    size_t length = strlen(dir);
    if (length + sizeof "/DejaVuSans.ttf" > sizeof path)
        return false;
    memcpy(path, dir, length);
    memcpy(path + length, "/DejaVuSans.ttf", sizeof "/DejaVuSans.ttf");
    return access(path, R_OK) == 0;
}

/* The fonts ship in assets/fonts beside the sources; an installed or built program finds
 * them relative to itself, then through IDEMSIM_ASSETS_DIR, then from the working
 * directory, then in the system's DejaVu package. */
static bool find_font_dir(char *dir, size_t size)
{
    enum { DATA = 5, SYSTEM = DATA + SCENARIO_LIBRARY_DIRS_MAX, CANDIDATES };
    char candidates[CANDIDATES][1100] = {{0}};
    char *base = SDL_GetBasePath();
    if (base != NULL) {
        snprintf(candidates[0], sizeof candidates[0], "%s../assets/fonts", base);
        snprintf(candidates[1], sizeof candidates[1], "%s../../assets/fonts", base);
        SDL_free(base);
    }
    const char *assets = getenv("IDEMSIM_ASSETS_DIR");
    if (assets != NULL && assets[0] != '\0') {
        snprintf(candidates[2], sizeof candidates[2], "%s/fonts", assets);
        snprintf(candidates[3], sizeof candidates[3], "%s", assets);
    }
    snprintf(candidates[4], sizeof candidates[4], "assets/fonts");
    /* installed: PREFIX/share/idemsim/fonts beside the program, or the build's prefix */
    char data[SCENARIO_LIBRARY_DIRS_MAX][SCENARIO_LIBRARY_PATH_MAX];
    int data_count = scenario_library_data_dirs(data, SCENARIO_LIBRARY_DIRS_MAX);
    for (int d = 0; d < SCENARIO_LIBRARY_DIRS_MAX && d < data_count; d++) {
        char *candidate = candidates[DATA + d];
        int written = snprintf(candidate, sizeof candidates[0], "%s/fonts", data[d]);
        if (written < 0 || (size_t)written >= sizeof candidates[0])
            candidate[0] = '\0'; /* cut short, it would name another directory */
    }
    snprintf(candidates[SYSTEM], sizeof candidates[SYSTEM], "/usr/share/fonts/truetype/dejavu");
    for (int i = 0; i < CANDIDATES; i++) {
        size_t length = strlen(candidates[i]);
        if (length > 0 && length < size && has_fonts(candidates[i])) {
            memcpy(dir, candidates[i], length + 1);
            return true;
        }
    }
    return false;
}

static void close_fonts(ViewCanvas *canvas)
{
    for (int f = 0; f < VIEW_FONT_COUNT; f++) {
        if (canvas->fonts[f] != NULL)
            TTF_CloseFont(canvas->fonts[f]);
        canvas->fonts[f] = NULL;
    }
}

static bool open_fonts(ViewCanvas *canvas, char *error, size_t error_size)
{
    for (int f = 0; f < VIEW_FONT_COUNT; f++) {
        char path[sizeof canvas->font_dir + 64];
        snprintf(path, sizeof path, "%s/%s", canvas->font_dir, font_specs[f].file);
        int px = (int)lroundf(font_specs[f].size_px * canvas->unit *
                              (f == VIEW_FONT_TINY ? canvas->label_scale : 1.0f));
        canvas->font_px[f] = px < 9 ? 9 : px;
        canvas->fonts[f] = TTF_OpenFont(path, canvas->font_px[f]);
        if (canvas->fonts[f] == NULL) {
            snprintf(error, error_size, "cannot open font %s: %s", path, TTF_GetError());
            close_fonts(canvas);
            return false;
        }
    }
    return true;
}

bool view_canvas_init(ViewCanvas *canvas, SDL_Renderer *renderer, float unit, float label_scale,
                      char *error, size_t error_size)
{
    memset(canvas, 0, sizeof *canvas);
    canvas->renderer = renderer;
    canvas->unit = unit;
    canvas->label_scale = label_scale;
    if (!find_font_dir(canvas->font_dir, sizeof canvas->font_dir)) {
        snprintf(error, error_size,
                 "cannot find the DejaVu fonts (looked in assets/fonts beside the program, "
                 "share/idemsim/fonts of the installation, "
                 "$IDEMSIM_ASSETS_DIR, ./assets/fonts and /usr/share/fonts/truetype/dejavu)");
        return false;
    }
    canvas->cache = view_canvas_text_cache_create();
    if (canvas->cache == NULL || !open_fonts(canvas, error, error_size)) {
        if (canvas->cache == NULL)
            snprintf(error, error_size, "out of memory");
        view_canvas_release(canvas);
        return false;
    }
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    return true;
}

void view_canvas_release(ViewCanvas *canvas)
{
    view_canvas_text_cache_destroy(canvas->cache);
    canvas->cache = NULL;
    close_fonts(canvas);
    free(canvas->batch);
    canvas->batch = NULL;
    canvas->batch_count = canvas->batch_capacity = 0;
    free(canvas->texts);
    canvas->texts = NULL;
    free(canvas->logged);
    canvas->logged = NULL;
    canvas->logged_count = canvas->logged_capacity = 0;
    canvas->text_count = canvas->text_capacity = 0;
}

bool view_canvas_set_unit(ViewCanvas *canvas, float unit, float label_scale, char *error,
                          size_t error_size)
{
    if (fabsf(unit - canvas->unit) < 0.001f && fabsf(label_scale - canvas->label_scale) < 0.001f &&
        canvas->fonts[0] != NULL)
        return true;
    view_canvas_flush(canvas);
    view_canvas_text_cache_clear(canvas->cache);
    close_fonts(canvas);
    canvas->unit = unit;
    canvas->label_scale = label_scale;
    return open_fonts(canvas, error, error_size);
}

void view_canvas_end_frame(ViewCanvas *canvas)
{
    view_canvas_flush(canvas);
    view_canvas_text_cache_age(canvas->cache, canvas->frame);
    canvas->frame++;
}

/* ------------------------------------------------------------------ colours */

SDL_Color view_canvas_color(ViewColor color, uint8_t alpha)
{
    uint32_t rgb = view_palette_rgb(color);
    return (SDL_Color){(uint8_t)(rgb >> 16), (uint8_t)(rgb >> 8), (uint8_t)rgb, alpha};
}

SDL_Color view_canvas_mix(ViewColor a, ViewColor b, float t)
{
    SDL_Color x = view_canvas_color(a, 255), y = view_canvas_color(b, 255);
    return (SDL_Color){(uint8_t)lroundf(x.r + (y.r - x.r) * t),
                       (uint8_t)lroundf(x.g + (y.g - x.g) * t),
                       (uint8_t)lroundf(x.b + (y.b - x.b) * t), 255};
}

/* ------------------------------------------------------------------ the batch */

static void flush_shapes(ViewCanvas *canvas)
{
    if (canvas->batch_count == 0)
        return;
    SDL_RenderGeometry(canvas->renderer, NULL, canvas->batch, canvas->batch_count, NULL, 0);
    canvas->batch_count = 0;
}

void view_canvas_flush(ViewCanvas *canvas)
{
    flush_shapes(canvas);
    view_canvas_text_flush(canvas);
}

static void triangle(ViewCanvas *canvas, float x1, float y1, float x2, float y2, float x3, float y3,
                     SDL_Color color)
{
    if (canvas->batch_count + 3 > canvas->batch_capacity) {
        int capacity = canvas->batch_capacity ? canvas->batch_capacity * 2 : 4096;
        SDL_Vertex *grown = realloc(canvas->batch, (size_t)capacity * sizeof *grown);
        if (grown == NULL) {
            flush_shapes(canvas); /* draw what we have and reuse the buffer */
            if (canvas->batch_capacity < 3)
                return;
        } else {
            canvas->batch = grown;
            canvas->batch_capacity = capacity;
        }
    }
    SDL_Vertex *v = &canvas->batch[canvas->batch_count];
    v[0] = (SDL_Vertex){{x1, y1}, color, {0, 0}};
    v[1] = (SDL_Vertex){{x2, y2}, color, {0, 0}};
    v[2] = (SDL_Vertex){{x3, y3}, color, {0, 0}};
    canvas->batch_count += 3;
}

static void quad(ViewCanvas *canvas, float x1, float y1, float x2, float y2, float x3, float y3,
                 float x4, float y4, SDL_Color color)
{
    triangle(canvas, x1, y1, x2, y2, x3, y3, color);
    triangle(canvas, x1, y1, x3, y3, x4, y4, color);
}

/* ------------------------------------------------------------------ shapes */

void view_canvas_fill(ViewCanvas *canvas, ViewRect rect, SDL_Color color)
{
    if (rect.w <= 0 || rect.h <= 0)
        return;
    float x = (float)rect.x, y = (float)rect.y, r = x + (float)rect.w, b = y + (float)rect.h;
    quad(canvas, x, y, r, y, r, b, x, b, color);
}

static void corner(ViewCanvas *canvas, float cx, float cy, float radius, float from_angle,
                   SDL_Color color)
{
    const int steps = 6;
    for (int i = 0; i < steps; i++) {
        float a0 = from_angle + PI / 2 * (float)i / steps;
        float a1 = from_angle + PI / 2 * (float)(i + 1) / steps;
        triangle(canvas, cx, cy, cx + cosf(a0) * radius, cy + sinf(a0) * radius,
                 cx + cosf(a1) * radius, cy + sinf(a1) * radius, color);
    }
}

void view_canvas_round(ViewCanvas *canvas, ViewRect rect, float radius, SDL_Color color)
{
    float limit = (float)(rect.w < rect.h ? rect.w : rect.h) / 2;
    if (radius > limit)
        radius = limit;
    if (radius < 1) {
        view_canvas_fill(canvas, rect, color);
        return;
    }
    float x = (float)rect.x, y = (float)rect.y;
    float r = x + (float)rect.w, b = y + (float)rect.h;
    quad(canvas, x + radius, y, r - radius, y, r - radius, b, x + radius, b, color);
    quad(canvas, x, y + radius, x + radius, y + radius, x + radius, b - radius, x, b - radius,
         color);
    quad(canvas, r - radius, y + radius, r, y + radius, r, b - radius, r - radius, b - radius,
         color);
    corner(canvas, x + radius, y + radius, radius, PI, color);
    corner(canvas, r - radius, y + radius, radius, PI * 1.5f, color);
    corner(canvas, r - radius, b - radius, radius, 0, color);
    corner(canvas, x + radius, b - radius, radius, PI / 2, color);
}

void view_canvas_outline(ViewCanvas *canvas, ViewRect rect, float width, SDL_Color color)
{
    int w = (int)lroundf(width < 1 ? 1 : width);
    view_canvas_fill(canvas, (ViewRect){rect.x, rect.y, rect.w, w}, color);
    view_canvas_fill(canvas, (ViewRect){rect.x, rect.y + rect.h - w, rect.w, w}, color);
    view_canvas_fill(canvas, (ViewRect){rect.x, rect.y + w, w, rect.h - 2 * w}, color);
    view_canvas_fill(canvas, (ViewRect){rect.x + rect.w - w, rect.y + w, w, rect.h - 2 * w}, color);
}

void view_canvas_line(ViewCanvas *canvas, float x1, float y1, float x2, float y2, float width,
                      SDL_Color color)
{
    float dx = x2 - x1, dy = y2 - y1;
    float length = sqrtf(dx * dx + dy * dy);
    if (length < 0.01f)
        return;
    if (width < 1.2f)
        width = 1.2f; /* thinner slanted quads leave gaps between pixel centres */
    float nx = -dy / length * width / 2, ny = dx / length * width / 2;
    quad(canvas, x1 + nx, y1 + ny, x2 + nx, y2 + ny, x2 - nx, y2 - ny, x1 - nx, y1 - ny, color);
}

void view_canvas_dashed(ViewCanvas *canvas, float x1, float y1, float x2, float y2, float width,
                        float dash, SDL_Color color)
{
    float dx = x2 - x1, dy = y2 - y1;
    float length = sqrtf(dx * dx + dy * dy);
    if (length < 0.01f || dash <= 0)
        return;
    for (float at = 0; at < length; at += dash * 2) {
        float end = at + dash < length ? at + dash : length;
        view_canvas_line(canvas, x1 + dx * at / length, y1 + dy * at / length,
                         x1 + dx * end / length, y1 + dy * end / length, width, color);
    }
}

void view_canvas_circle(ViewCanvas *canvas, float x, float y, float radius, SDL_Color color)
{
    int steps = (int)(radius * 1.5f);
    steps = steps < 10 ? 10 : steps > 48 ? 48 : steps;
    for (int i = 0; i < steps; i++) {
        float a0 = 2 * PI * (float)i / (float)steps;
        float a1 = 2 * PI * (float)(i + 1) / (float)steps;
        triangle(canvas, x, y, x + cosf(a0) * radius, y + sinf(a0) * radius, x + cosf(a1) * radius,
                 y + sinf(a1) * radius, color);
    }
}

void view_canvas_cross(ViewCanvas *canvas, float x, float y, float size, float width,
                       SDL_Color color)
{
    view_canvas_line(canvas, x - size, y - size, x + size, y + size, width, color);
    view_canvas_line(canvas, x - size, y + size, x + size, y - size, width, color);
}

void view_canvas_arrowhead(ViewCanvas *canvas, float x1, float y1, float x2, float y2, float size,
                           SDL_Color color)
{
    float dx = x2 - x1, dy = y2 - y1;
    float length = sqrtf(dx * dx + dy * dy);
    if (length < 0.01f)
        return;
    float ux = dx / length, uy = dy / length;
    float bx = x2 - ux * size, by = y2 - uy * size;
    float half = size * 0.5f;
    triangle(canvas, x2, y2, bx - uy * half, by + ux * half, bx + uy * half, by - ux * half, color);
}
