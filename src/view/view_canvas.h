/* The drawing surface: an SDL_Renderer (a window's or a software one on a surface), the
 * fonts sized for the current layout unit, a cache of rendered strings, and the few shapes
 * the view needs (filled and rounded rectangles, thick lines, circles, crosses), batched
 * into SDL_RenderGeometry calls. The canvas owns its fonts, cache and batch; the renderer
 * is borrowed. */
#ifndef IDEMSIM_VIEW_CANVAS_H
#define IDEMSIM_VIEW_CANVAS_H

#include <SDL.h>
#include <SDL_ttf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "view.h"

typedef enum {
    VIEW_FONT_TITLE,
    VIEW_FONT_HEADER,
    VIEW_FONT_NUMBER,
    VIEW_FONT_NUMBER_SMALL,
    VIEW_FONT_LABEL,
    VIEW_FONT_BODY,
    VIEW_FONT_SMALL,
    VIEW_FONT_TINY,
    VIEW_FONT_MONO,
    VIEW_FONT_COUNT
} ViewFont;

typedef enum { VIEW_ALIGN_LEFT, VIEW_ALIGN_CENTER, VIEW_ALIGN_RIGHT } ViewAlign;

typedef struct ViewTextCache ViewTextCache; /* opaque */

#define VIEW_TEXT_LOGGED_LEN 256

/* A string as drawn: where, how large, what (cut to VIEW_TEXT_LOGGED_LEN - 1 bytes, at a
 * character boundary: the card's and narration's lines are checked word for word). */
typedef struct {
    ViewRect box; /* the part that shows */
    int font_px;
    bool clipped; /* cut by the clip rectangle: box is smaller than the string */
    char text[VIEW_TEXT_LOGGED_LEN];
} ViewTextLogged;

typedef struct {
    SDL_Renderer *renderer;
    float unit;
    float label_scale; /* the tiny type (the diagram's labels) against the unit */
    TTF_Font *fonts[VIEW_FONT_COUNT];
    int font_px[VIEW_FONT_COUNT];
    char font_dir[1024];
    ViewTextCache *cache;
    SDL_Vertex *batch;
    int batch_count;
    int batch_capacity;
    struct ViewCanvasText *texts; /* strings waiting for the end of the layer */
    int text_count;
    int text_capacity;
    bool log_texts; /* keep every string drawn since view_canvas_log_restart, with its box */
    ViewTextLogged *logged;
    int logged_count;
    int logged_capacity;
    uint64_t frame;
} ViewCanvas;

/* Finds the fonts (see view_canvas.c for the search order) and opens them for unit. On
 * failure writes the reason to error and returns false. */
bool view_canvas_init(ViewCanvas *canvas, SDL_Renderer *renderer, float unit, float label_scale,
                      char *error, size_t error_size);
void view_canvas_release(ViewCanvas *canvas);
/* Reopens the fonts when the unit changed (window resized). */
bool view_canvas_set_unit(ViewCanvas *canvas, float unit, float label_scale, char *error,
                          size_t error_size);
/* Call once per frame after drawing: flushes the layer and ages the text cache. */
void view_canvas_end_frame(ViewCanvas *canvas);
/* Ends a layer: draws its shapes, then its strings on top. Within a layer strings never
 * hide under shapes; a panel drawn over text (a tooltip, the help) starts a new layer.
 * Batching a layer's shapes into one call matters where the "GPU" is a CPU rasteriser
 * (Mesa llvmpipe, Xvfb): every call costs there, and most strings sit on some shape. */
void view_canvas_flush(ViewCanvas *canvas);

/* Starts a new log of the strings drawn (with log_texts set): a frame calls it first. */
void view_canvas_log_restart(ViewCanvas *canvas);

/* ------------------------------------------------------------------ colours */

SDL_Color view_canvas_color(ViewColor color, uint8_t alpha);
SDL_Color view_canvas_mix(ViewColor a, ViewColor b, float t); /* t = 0: a, 1: b */

/* ------------------------------------------------------------------ shapes */

void view_canvas_fill(ViewCanvas *canvas, ViewRect rect, SDL_Color color);
void view_canvas_round(ViewCanvas *canvas, ViewRect rect, float radius, SDL_Color color);
void view_canvas_outline(ViewCanvas *canvas, ViewRect rect, float width, SDL_Color color);
void view_canvas_line(ViewCanvas *canvas, float x1, float y1, float x2, float y2, float width,
                      SDL_Color color);
void view_canvas_dashed(ViewCanvas *canvas, float x1, float y1, float x2, float y2, float width,
                        float dash, SDL_Color color);
void view_canvas_circle(ViewCanvas *canvas, float x, float y, float radius, SDL_Color color);
void view_canvas_cross(ViewCanvas *canvas, float x, float y, float size, float width,
                       SDL_Color color);
/* A filled triangle pointing from (x1, y1) towards (x2, y2), its tip at (x2, y2). */
void view_canvas_arrowhead(ViewCanvas *canvas, float x1, float y1, float x2, float y2, float size,
                           SDL_Color color);

/* ------------------------------------------------------------------ text */

/* Draws text with its top at y, aligned on x; returns its width. wrap_px > 0 wraps lines. */
int view_canvas_text(ViewCanvas *canvas, ViewFont font, SDL_Color color, int x, int y,
                     ViewAlign align, const char *text);
int view_canvas_text_wrapped(ViewCanvas *canvas, ViewFont font, SDL_Color color, int x, int y,
                             int wrap_px, const char *text);
/* Like view_canvas_text, shortened with an ellipsis to fit max_w. */
int view_canvas_text_fit(ViewCanvas *canvas, ViewFont font, SDL_Color color, int x, int y,
                         ViewAlign align, int max_w, const char *text);
/* Wraps text at word boundaries into lines of at most wrap_px and draws at most max_lines of
 * them, one under the other from y; the last line drawn ends in an ellipsis when words are
 * left over. Returns the number of lines drawn. */
int view_canvas_text_lines(ViewCanvas *canvas, ViewFont font, SDL_Color color, int x, int y,
                           int wrap_px, int max_lines, const char *text);
/* How many lines view_canvas_text_lines needs for the whole text. */
int view_canvas_text_line_count(ViewCanvas *canvas, ViewFont font, int wrap_px, const char *text);
int view_canvas_text_width(ViewCanvas *canvas, ViewFont font, const char *text);
int view_canvas_text_height(const ViewCanvas *canvas, ViewFont font);

/* The string cache (view_canvas_text.c): textures of recently drawn strings, dropped when a
 * few frames pass without them. */
ViewTextCache *view_canvas_text_cache_create(void);
void view_canvas_text_cache_destroy(ViewTextCache *cache); /* NULL is a no-op */
void view_canvas_text_cache_age(ViewTextCache *cache, uint64_t frame);
void view_canvas_text_cache_clear(ViewTextCache *cache);
/* Draws the strings of the current layer (view_canvas_flush calls it). */
void view_canvas_text_flush(ViewCanvas *canvas);

#endif
