/* PNG output, whole or absent, through the reports' OutputFile: SDL_image writes into the
 * temporary file's stream, which is renamed over PATH only once all of it is written, with
 * the same error messages and the same clean-up on Ctrl-C as every other output. */
#include <SDL_image.h>
#include <stdio.h>

#include "report.h"
#include "view_app.h"

bool view_png_save_surface(SDL_Surface *surface, const char *path)
{
    OutputFile file;
    char error[4400];
    if (!output_file_open(&file, path, error, sizeof error)) {
        fprintf(stderr, "idemsim view: %s\n", error);
        return false;
    }
    /* The RWops is freed by IMG_SavePNG_RW; the FILE stays open for the OutputFile. */
    SDL_RWops *stream = SDL_RWFromFP(file.stream, SDL_FALSE);
    if (stream == NULL || IMG_SavePNG_RW(surface, stream, 1) != 0) {
        fprintf(stderr, "idemsim view: cannot write %s: %s\n", path,
                stream == NULL ? SDL_GetError() : IMG_GetError());
        output_file_abandon(&file);
        return false;
    }
    if (!output_file_commit(&file, error, sizeof error)) {
        fprintf(stderr, "idemsim view: %s\n", error);
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
