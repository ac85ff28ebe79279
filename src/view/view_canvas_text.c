/* Text. Rendering a string with SDL_ttf and uploading it costs far more than drawing the
 * texture, and most strings (labels, lane names, counters that did not change) repeat from
 * frame to frame, so textures are cached by (font, colour, wrap width, text) in an
 * open-addressing table and dropped once they go unused for a while. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "view_canvas.h"

#define CACHE_SLOTS 4096 /* a power of two */
#define CACHE_KEEP_FRAMES 30
#define TEXT_LEN_MAX 512

typedef struct {
    uint64_t hash; /* 0: empty slot */
    char *text;
    int font;
    uint32_t rgba;
    int wrap_px;
    SDL_Texture *texture;
    int w, h;
    uint64_t last_frame;
} TextEntry;

struct ViewCanvasText {
    SDL_Texture *texture; /* owned by the cache, which keeps it while this frame uses it */
    SDL_Rect target;
};

struct ViewTextCache {
    TextEntry *slots;
    TextEntry *spare; /* the table being rebuilt into */
    uint32_t used;
    uint64_t frame;
};

/* ------------------------------------------------------------------ the cache */

ViewTextCache *view_canvas_text_cache_create(void)
{
    ViewTextCache *cache = calloc(1, sizeof *cache);
    if (cache == NULL)
        return NULL;
    cache->slots = calloc(CACHE_SLOTS, sizeof *cache->slots);
    cache->spare = calloc(CACHE_SLOTS, sizeof *cache->spare);
    if (cache->slots == NULL || cache->spare == NULL) {
        view_canvas_text_cache_destroy(cache);
        return NULL;
    }
    return cache;
}

static void drop_entry(TextEntry *entry)
{
    if (entry->texture != NULL)
        SDL_DestroyTexture(entry->texture);
    free(entry->text);
    memset(entry, 0, sizeof *entry);
}

void view_canvas_text_cache_clear(ViewTextCache *cache)
{
    if (cache == NULL)
        return;
    for (uint32_t i = 0; i < CACHE_SLOTS; i++) {
        if (cache->slots[i].hash != 0)
            drop_entry(&cache->slots[i]);
    }
    cache->used = 0;
}

void view_canvas_text_cache_destroy(ViewTextCache *cache)
{
    if (cache == NULL)
        return;
    if (cache->slots != NULL)
        view_canvas_text_cache_clear(cache);
    free(cache->slots);
    free(cache->spare);
    free(cache);
}

static uint64_t hash_key(int font, uint32_t rgba, int wrap_px, const char *text)
{
    uint64_t hash = 1469598103934665603ull; /* FNV-1a */
    uint64_t words[3] = {(uint64_t)font, rgba, (uint64_t)wrap_px};
    for (int w = 0; w < 3; w++) {
        hash ^= words[w];
        hash *= 1099511628211ull;
    }
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
        hash ^= *c;
        hash *= 1099511628211ull;
    }
    return hash != 0 ? hash : 1;
}

/* Keeps what was used recently; when the table is still over half full, keeps only what
 * this frame used. Rehashing into the spare table keeps probe chains unbroken. */
void view_canvas_text_cache_age(ViewTextCache *cache, uint64_t frame)
{
    if (cache == NULL)
        return;
    cache->frame = frame;
    if (frame % CACHE_KEEP_FRAMES != 0 && cache->used < CACHE_SLOTS / 2)
        return;
    uint64_t keep_after = frame >= CACHE_KEEP_FRAMES ? frame - CACHE_KEEP_FRAMES : 0;
    if (cache->used >= CACHE_SLOTS / 2)
        keep_after = frame;
    memset(cache->spare, 0, CACHE_SLOTS * sizeof *cache->spare);
    cache->used = 0;
    for (uint32_t i = 0; i < CACHE_SLOTS; i++) {
        TextEntry *entry = &cache->slots[i];
        if (entry->hash == 0)
            continue;
        if (entry->last_frame < keep_after) {
            drop_entry(entry);
            continue;
        }
        uint32_t slot = (uint32_t)entry->hash & (CACHE_SLOTS - 1);
        while (cache->spare[slot].hash != 0)
            slot = (slot + 1) & (CACHE_SLOTS - 1);
        cache->spare[slot] = *entry;
        cache->used++;
    }
    TextEntry *swap = cache->slots;
    cache->slots = cache->spare;
    cache->spare = swap;
}

static SDL_Texture *render(ViewCanvas *canvas, ViewFont font, SDL_Color color, int wrap_px,
                           const char *text, int *w, int *h)
{
    SDL_Surface *surface = wrap_px > 0 ? TTF_RenderUTF8_Blended_Wrapped(canvas->fonts[font], text,
                                                                        color, (Uint32)wrap_px)
                                       : TTF_RenderUTF8_Blended(canvas->fonts[font], text, color);
    if (surface == NULL)
        return NULL;
    SDL_Texture *texture = SDL_CreateTextureFromSurface(canvas->renderer, surface);
    *w = surface->w;
    *h = surface->h;
    SDL_FreeSurface(surface);
    return texture;
}

/* The cached texture for the string, rendering it on a miss. NULL for empty text. */
static const TextEntry *lookup(ViewCanvas *canvas, ViewFont font, SDL_Color color, int wrap_px,
                               const char *text)
{
    ViewTextCache *cache = canvas->cache;
    if (text[0] == '\0' || cache == NULL)
        return NULL;
    uint32_t rgba =
        (uint32_t)color.r << 24 | (uint32_t)color.g << 16 | (uint32_t)color.b << 8 | color.a;
    uint64_t hash = hash_key(font, rgba, wrap_px, text);
    uint32_t slot = (uint32_t)hash & (CACHE_SLOTS - 1);
    for (;; slot = (slot + 1) & (CACHE_SLOTS - 1)) {
        TextEntry *entry = &cache->slots[slot];
        if (entry->hash == 0)
            break;
        if (entry->hash == hash && entry->font == (int)font && entry->rgba == rgba &&
            entry->wrap_px == wrap_px && strcmp(entry->text, text) == 0) {
            entry->last_frame = canvas->frame;
            return entry;
        }
    }
    if (cache->used + 1 >= CACHE_SLOTS * 3 / 4)
        view_canvas_text_cache_age(cache, canvas->frame); /* also restarts the probe */
    if (cache->used + 1 >= CACHE_SLOTS * 7 / 8)
        return NULL; /* thousands of distinct strings in one frame: a bug, not a reason to hang */
    slot = (uint32_t)hash & (CACHE_SLOTS - 1);
    while (cache->slots[slot].hash != 0)
        slot = (slot + 1) & (CACHE_SLOTS - 1);
    TextEntry entry = {.hash = hash,
                       .font = (int)font,
                       .rgba = rgba,
                       .wrap_px = wrap_px,
                       .last_frame = canvas->frame};
    entry.text = malloc(strlen(text) + 1);
    entry.texture = render(canvas, font, color, wrap_px, text, &entry.w, &entry.h);
    if (entry.text == NULL || entry.texture == NULL) {
        drop_entry(&entry);
        return NULL;
    }
    strcpy(entry.text, text);
    cache->slots[slot] = entry;
    cache->used++;
    return &cache->slots[slot];
}

/* ------------------------------------------------------------------ drawing */

void view_canvas_text_flush(ViewCanvas *canvas)
{
    for (int i = 0; i < canvas->text_count; i++)
        SDL_RenderCopy(canvas->renderer, canvas->texts[i].texture, NULL, &canvas->texts[i].target);
    canvas->text_count = 0;
}

void view_canvas_log_restart(ViewCanvas *canvas)
{
    canvas->logged_count = 0;
}

/* What shows of a string: a clip rectangle (the diagram's body) cuts what spills out. */
static void log_text(ViewCanvas *canvas, ViewFont font, SDL_Rect target, const char *text)
{
    bool clipped = false;
    if (SDL_RenderIsClipEnabled(canvas->renderer)) {
        SDL_Rect clip, shown;
        SDL_RenderGetClipRect(canvas->renderer, &clip);
        if (!SDL_IntersectRect(&target, &clip, &shown))
            return;
        clipped = shown.w != target.w || shown.h != target.h;
        target = shown;
    }
    if (canvas->logged_count == canvas->logged_capacity) {
        int capacity = canvas->logged_capacity ? canvas->logged_capacity * 2 : 256;
        ViewTextLogged *grown = realloc(canvas->logged, (size_t)capacity * sizeof *grown);
        if (grown == NULL)
            return; /* a check of the layout misses a string; the picture is unharmed */
        canvas->logged = grown;
        canvas->logged_capacity = capacity;
    }
    ViewTextLogged *logged = &canvas->logged[canvas->logged_count++];
    logged->box = (ViewRect){target.x, target.y, target.w, target.h};
    logged->font_px = canvas->font_px[font];
    logged->clipped = clipped;
    size_t length = strlen(text);
    if (length >= sizeof logged->text) { /* never half a UTF-8 character: the log is JSON */
        length = sizeof logged->text - 1;
        while (length > 0 && ((unsigned char)text[length] & 0xC0) == 0x80)
            length--;
    }
    memcpy(logged->text, text, length);
    logged->text[length] = '\0';
}

static int draw_entry(ViewCanvas *canvas, ViewFont font, const TextEntry *entry, int x, int y,
                      ViewAlign align)
{
    if (entry == NULL)
        return 0;
    SDL_Rect target = {x, y, entry->w, entry->h};
    if (align == VIEW_ALIGN_CENTER)
        target.x -= entry->w / 2;
    else if (align == VIEW_ALIGN_RIGHT)
        target.x -= entry->w;
    if (canvas->log_texts)
        log_text(canvas, font, target, entry->text);
    if (canvas->text_count == canvas->text_capacity) {
        int capacity = canvas->text_capacity ? canvas->text_capacity * 2 : 256;
        struct ViewCanvasText *grown = realloc(canvas->texts, (size_t)capacity * sizeof *grown);
        if (grown == NULL) {
            view_canvas_flush(canvas); /* out of memory: draw now rather than lose it */
            SDL_RenderCopy(canvas->renderer, entry->texture, NULL, &target);
            return entry->w;
        }
        canvas->texts = grown;
        canvas->text_capacity = capacity;
    }
    canvas->texts[canvas->text_count++] = (struct ViewCanvasText){entry->texture, target};
    return entry->w;
}

int view_canvas_text(ViewCanvas *canvas, ViewFont font, SDL_Color color, int x, int y,
                     ViewAlign align, const char *text)
{
    return draw_entry(canvas, font, lookup(canvas, font, color, 0, text), x, y, align);
}

int view_canvas_text_wrapped(ViewCanvas *canvas, ViewFont font, SDL_Color color, int x, int y,
                             int wrap_px, const char *text)
{
    const TextEntry *entry = lookup(canvas, font, color, wrap_px > 0 ? wrap_px : 1, text);
    draw_entry(canvas, font, entry, x, y, VIEW_ALIGN_LEFT);
    return entry != NULL ? entry->h : 0;
}

int view_canvas_text_width(ViewCanvas *canvas, ViewFont font, const char *text)
{
    int w = 0, h = 0;
    if (text[0] == '\0' || TTF_SizeUTF8(canvas->fonts[font], text, &w, &h) != 0)
        return 0;
    return w;
}

int view_canvas_text_height(const ViewCanvas *canvas, ViewFont font)
{
    return TTF_FontHeight(canvas->fonts[font]);
}

/* Drops whole UTF-8 characters from the end until the text and an ellipsis fit. */
int view_canvas_text_fit(ViewCanvas *canvas, ViewFont font, SDL_Color color, int x, int y,
                         ViewAlign align, int max_w, const char *text)
{
    if (view_canvas_text_width(canvas, font, text) <= max_w)
        return view_canvas_text(canvas, font, color, x, y, align, text);
    char shortened[TEXT_LEN_MAX + 4];
    size_t length = strlen(text);
    if (length > TEXT_LEN_MAX)
        length = TEXT_LEN_MAX;
    while (length > 0) {
        length--;
        while (length > 0 && ((unsigned char)text[length] & 0xC0) == 0x80)
            length--;
        memcpy(shortened, text, length);
        memcpy(shortened + length, "\xE2\x80\xA6", 4); /* U+2026 and the terminator */
        if (view_canvas_text_width(canvas, font, shortened) <= max_w)
            break;
    }
    if (length == 0)
        return 0;
    return view_canvas_text(canvas, font, color, x, y, align, shortened);
}

/* ------------------------------------------------------------------ wrapped lines */

/* The length of a unit that follows a number at text ("s", "ms"), which a line must not
 * leave on its own ("arrives at 20.024" above "s"); 0 when text starts with none. */
static size_t unit_after_number(const char *text)
{
    static const char *const units[] = {"s", "ms", "µs", "h"};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t length = strlen(units[i]);
        if (strncmp(text, units[i], length) != 0)
            continue; /* text ends before length, or differs: past it is not read */
        char after = text[length];
        if (after == '\0' || after == ' ' || after == ',' || after == '.' || after == ')' ||
            after == ';' || after == ':')
            return length;
    }
    return 0;
}

/* The end of the longest run of whole words from text that fits wrap_px (at least one
 * word, even when that word alone is too wide). A number and its unit are one word. */
static size_t line_end(ViewCanvas *canvas, ViewFont font, int wrap_px, const char *text)
{
    char line[TEXT_LEN_MAX + 1];
    size_t fit = 0;
    for (;;) {
        size_t next = fit;
        while (text[next] == ' ')
            next++;
        while (text[next] != '\0' && text[next] != ' ')
            next++;
        size_t unit = next > 0 && text[next] == ' ' && isdigit((unsigned char)text[next - 1])
                          ? unit_after_number(text + next + 1)
                          : 0;
        if (unit > 0)
            next += 1 + unit;
        while (unit > 0 && text[next] != '\0' && text[next] != ' ')
            next++; /* the punctuation after it */
        if (next == fit)
            return fit;
        if (next > TEXT_LEN_MAX)
            return fit > 0 ? fit : TEXT_LEN_MAX; /* a "word" this long is not prose */
        memcpy(line, text, next);
        line[next] = '\0';
        if (fit > 0 && view_canvas_text_width(canvas, font, line) > wrap_px)
            return fit;
        fit = next;
    }
}

/* Greedy word wrap. SDL_ttf's own wrapping (view_canvas_text_wrapped) cannot say in advance
 * how many lines it will take, and a caller with a fixed box needs to know. */
static int wrap_lines(ViewCanvas *canvas, ViewFont font, SDL_Color color, int x, int y, int wrap_px,
                      int max_lines, const char *text, bool draw)
{
    int line_h = view_canvas_text_height(canvas, font);
    int lines = 0;
    char line[TEXT_LEN_MAX + 1];
    while (max_lines <= 0 || lines < max_lines) {
        while (*text == ' ')
            text++;
        if (*text == '\0')
            break;
        size_t end = line_end(canvas, font, wrap_px, text);
        const char *rest = text + end;
        while (*rest == ' ')
            rest++;
        bool last = max_lines > 0 && lines == max_lines - 1 && *rest != '\0';
        if (draw && last) {
            view_canvas_text_fit(canvas, font, color, x, y + lines * line_h, VIEW_ALIGN_LEFT,
                                 wrap_px, text);
        } else if (draw) {
            memcpy(line, text, end);
            line[end] = '\0';
            view_canvas_text_fit(canvas, font, color, x, y + lines * line_h, VIEW_ALIGN_LEFT,
                                 wrap_px, line);
        }
        lines++;
        text = rest;
    }
    return lines;
}

int view_canvas_text_lines(ViewCanvas *canvas, ViewFont font, SDL_Color color, int x, int y,
                           int wrap_px, int max_lines, const char *text)
{
    return wrap_lines(canvas, font, color, x, y, wrap_px, max_lines > 0 ? max_lines : 1, text,
                      true);
}

int view_canvas_text_line_count(ViewCanvas *canvas, ViewFont font, int wrap_px, const char *text)
{
    SDL_Color none = {0, 0, 0, 0};
    return wrap_lines(canvas, font, none, 0, 0, wrap_px, 0, text, false);
}
