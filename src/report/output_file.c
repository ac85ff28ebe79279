/* Whole-or-nothing output files: a reader never sees a half-written report, and a failed
 * write (full disk, unwritable directory) leaves nothing behind. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

/* Temporary files now open, so that an interrupted program can remove them: a signal
 * handler may only unlink, so the paths are kept here, ready to use. */
#define OPEN_TEMPORARIES_MAX 8
static const char *open_temporaries[OPEN_TEMPORARIES_MAX];

static void remember_temporary(const char *path)
{
    for (int i = 0; i < OPEN_TEMPORARIES_MAX; i++) {
        if (open_temporaries[i] == NULL) {
            open_temporaries[i] = path;
            return;
        }
    }
}

static void forget_temporary(const char *path)
{
    for (int i = 0; i < OPEN_TEMPORARIES_MAX; i++) {
        if (open_temporaries[i] == path)
            open_temporaries[i] = NULL;
    }
}

void output_file_remove_temporaries(void)
{
    for (int i = 0; i < OPEN_TEMPORARIES_MAX; i++) {
        if (open_temporaries[i] != NULL)
            unlink(open_temporaries[i]);
    }
}

bool output_file_open(OutputFile *file, const char *path, char *error, size_t error_size)
{
    memset(file, 0, sizeof *file);
    if (strlen(path) >= sizeof file->path) {
        snprintf(error, error_size, "%.60s...: path too long", path);
        return false;
    }
    snprintf(file->path, sizeof file->path, "%s", path);
    struct stat info;
    bool exists = lstat(path, &info) == 0;
    if ((exists && !S_ISREG(info.st_mode)) || strncmp(path, "/dev/", 5) == 0) {
        /* A symlink, device or pipe (/dev/stdout, a FIFO): write through. Renaming over it
         * would replace the link or the device node itself. */
        file->stream = fopen(path, "wb");
        if (file->stream == NULL) {
            snprintf(error, error_size, "%s: cannot write: %s", path, strerror(errno));
            return false;
        }
        return true;
    }
    snprintf(file->temporary_path, sizeof file->temporary_path, "%s.tmp.%ld", path, (long)getpid());
    file->stream = fopen(file->temporary_path, "wb");
    if (file->stream == NULL) {
        snprintf(error, error_size, "%s: cannot write: %s", path, strerror(errno));
        return false;
    }
    remember_temporary(file->temporary_path);
    return true;
}

bool output_file_commit(OutputFile *file, char *error, size_t error_size)
{
    bool ok = !ferror(file->stream);
    int saved = errno;
    if (fclose(file->stream) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    file->stream = NULL;
    forget_temporary(file->temporary_path);
    if (file->temporary_path[0] == '\0') {
        if (!ok)
            snprintf(error, error_size, "%s: cannot write: %s", file->path, strerror(saved));
        return ok;
    }
    if (ok && rename(file->temporary_path, file->path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        snprintf(error, error_size, "%s: cannot write: %s", file->path, strerror(saved));
        remove(file->temporary_path);
    }
    return ok;
}

void output_file_abandon(OutputFile *file)
{
    if (file->stream != NULL) {
        fclose(file->stream);
        file->stream = NULL;
        forget_temporary(file->temporary_path);
        if (file->temporary_path[0] != '\0')
            remove(file->temporary_path);
    }
}
