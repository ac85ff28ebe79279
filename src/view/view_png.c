/* PNG output, whole or absent: the image goes to PATH.tmp.PID and is renamed over PATH only
 * once SDL_image has written all of it, as the reports do with their files. */
#include <SDL_image.h>
#include <stdio.h>
#include <unistd.h>

#include "view_app.h"

bool view_png_save_surface(SDL_Surface *surface, const char *path)
{
    char temporary[4200];
    snprintf(temporary, sizeof temporary, "%s.tmp.%ld", path, (long)getpid());
    if (IMG_SavePNG(surface, temporary) != 0) {
        fprintf(stderr, "idemsim view: cannot write %s: %s\n", path, IMG_GetError());
        remove(temporary);
        return false;
    }
    if (rename(temporary, path) != 0) {
        perror(path);
        remove(temporary);
        return false;
    }
    return true;
}

bool view_png_save_renderer(SDL_Renderer *renderer, int width, int height, const char *path)
{
    SDL_Surface *surface =
        SDL_CreateRGBSurfaceWithFormat(0, width, height, 32, SDL_PIXELFORMAT_RGB888);
    if (surface == NULL) {
        fprintf(stderr, "idemsim view: cannot capture the frame: %s\n", SDL_GetError());
        return false;
    }
    bool ok = SDL_RenderReadPixels(renderer, NULL, surface->format->format, surface->pixels,
                                   surface->pitch) == 0;
    if (!ok)
        fprintf(stderr, "idemsim view: cannot read the frame: %s\n", SDL_GetError());
    ok = ok && view_png_save_surface(surface, path);
    SDL_FreeSurface(surface);
    return ok;
}
