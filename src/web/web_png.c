/* The browser's stand-in for view_png.c (which writes files with SDL_image): key p hands the
 * frame's pixels to the page, which encodes a PNG with the browser's own encoder and offers
 * it as a download under the name the desktop would have used. */
#include <emscripten.h>
#include <string.h>

#include "view_app.h"

/* RGBA bytes in memory order, as the browser's ImageData wants them. */
static bool offer_download(const SDL_Surface *rgba, const char *path)
{
    const char *name = strrchr(path, '/');
    name = name != NULL ? name + 1 : path;
    /* clang-format off */
    EM_ASM({
        if (typeof Module.offerPng === "function")
            Module.offerPng(HEAPU8.slice($0, $0 + $1 * $2 * 4), $1, $2, UTF8ToString($3));
    }, rgba->pixels, rgba->w, rgba->h, name);
    /* clang-format on */
    return true;
}

bool view_png_save_renderer(SDL_Renderer *renderer, int width, int height, const char *path)
{
    SDL_Surface *rgba =
        SDL_CreateRGBSurfaceWithFormat(0, width, height, 32, SDL_PIXELFORMAT_RGBA32);
    if (rgba == NULL)
        return false;
    bool ok = SDL_RenderReadPixels(renderer, NULL, SDL_PIXELFORMAT_RGBA32, rgba->pixels,
                                   rgba->pitch) == 0 &&
              offer_download(rgba, path);
    SDL_FreeSurface(rgba);
    return ok;
}

bool view_png_save_surface(SDL_Surface *surface, const char *path)
{
    SDL_Surface *rgba = SDL_ConvertSurfaceFormat(surface, SDL_PIXELFORMAT_RGBA32, 0);
    if (rgba == NULL)
        return false;
    bool ok = offer_download(rgba, path);
    SDL_FreeSurface(rgba);
    return ok;
}
