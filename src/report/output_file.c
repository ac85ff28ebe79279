/* Whole-or-nothing output files: a reader never sees a half-written report, a failed write
 * (full disk, unwritable directory) leaves nothing behind, and no existing file is harmed
 * before the new one is complete. Every byte goes through one recording writer, so the
 * error reported is the errno of the write(2) that failed, not whatever a later call left
 * in errno (stdio's own isatty() leaves ENOTTY there). */
#define _GNU_SOURCE /* fopencookie (glibc, musl): the recording writer under a FILE */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

/* ------------------------------------------------------------------ the recording writer */

static ssize_t recording_write(void *cookie, const char *buffer, size_t size)
{
    OutputWriter *writer = cookie;
    size_t done = 0;
    while (done < size) {
        ssize_t written = write(writer->descriptor, buffer + done, size - done);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0) {
            if (writer->error == 0)
                writer->error = written < 0 ? errno : EIO;
            return done > 0 ? (ssize_t)done : -1;
        }
        done += (size_t)written;
    }
    return (ssize_t)done;
}

/* PNG writers may ask where they are. */
static int recording_seek(void *cookie, off64_t *offset, int whence)
{
    OutputWriter *writer = cookie;
    off_t at = lseek(writer->descriptor, (off_t)*offset, whence);
    if (at < 0)
        return -1;
    *offset = at;
    return 0;
}

static int recording_close(void *cookie)
{
    OutputWriter *writer = cookie;
    if (writer->descriptor >= 0 && close(writer->descriptor) != 0 && writer->error == 0)
        writer->error = errno;
    writer->descriptor = -1;
    return writer->error == 0 ? 0 : -1;
}

static FILE *recording_stream(OutputWriter *writer, bool closes)
{
    cookie_io_functions_t functions = {
        .write = recording_write,
        .seek = recording_seek,
        .close = closes ? recording_close : NULL,
    };
    return fopencookie(writer, "w", functions);
}

/* ------------------------------------------------------------------ standard output */

static OutputWriter stdout_writer = {.descriptor = STDOUT_FILENO};
static bool stdout_installed;

bool output_stdout_install(void)
{
    if (stdout_installed)
        return true;
    int flags = fcntl(STDOUT_FILENO, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
        return false; /* stdio reports its writes then; a command that needs it says so */
    bool terminal = isatty(STDOUT_FILENO);
    FILE *stream = recording_stream(&stdout_writer, false);
    if (stream == NULL)
        return false;
    fflush(stdout);
    /* glibc documents stdout as an ordinary variable one may assign (manual, "Standard
     * Streams"); the original stream stays open and unused. */
    stdout = stream;
    setvbuf(stdout, NULL, terminal ? _IOLBF : _IOFBF, terminal ? 0 : 1 << 16);
    stdout_installed = true;
    return true;
}

int output_stdout_error(void)
{
    errno = 0;
    bool failed = fflush(stdout) != 0 || ferror(stdout);
    if (!stdout_installed)
        return failed ? (errno != 0 ? errno : EIO) : 0;
    if (failed && stdout_writer.error == 0)
        stdout_writer.error = EIO;
    return stdout_writer.error;
}

/* ------------------------------------------------------------------ open temporaries */

/* Temporary files now on disk, so that a signal handler can remove them: it may only
 * unlink, so the paths are copied here whole and a slot is published only once its path
 * is complete. The main thread alone opens and commits output files. */
#define OPEN_TEMPORARIES_MAX 16
static char temporary_paths[OPEN_TEMPORARIES_MAX][OUTPUT_PATH_MAX + 32];
static volatile sig_atomic_t temporary_in_use[OPEN_TEMPORARIES_MAX];

static int remember_temporary(const char *path)
{
    for (int i = 0; i < OPEN_TEMPORARIES_MAX; i++) {
        if (!temporary_in_use[i]) {
            snprintf(temporary_paths[i], sizeof temporary_paths[i], "%s", path);
            temporary_in_use[i] = 1;
            return i;
        }
    }
    return -1;
}

/* After the rename or the unlink, never before: a signal in between then finds nothing
 * to remove (ENOENT), rather than missing a file still there. */
static void forget_temporary(int slot)
{
    if (slot >= 0)
        temporary_in_use[slot] = 0;
}

void output_file_remove_temporaries(void)
{
    for (int i = 0; i < OPEN_TEMPORARIES_MAX; i++) {
        if (temporary_in_use[i])
            unlink(temporary_paths[i]);
    }
}

/* ------------------------------------------------------------------ opening */

static bool open_error(char *error, size_t error_size, const char *path, const char *reason)
{
    snprintf(error, error_size, "%s: cannot write: %s", path, reason);
    return false;
}

/* "/dev/stdout", "/dev/stderr", "/dev/fd/N": the descriptor itself, so that the output
 * shares its offset with what the shell opened (reopening a regular file through
 * /proc/self/fd would write over the start of it). -1 for any other path. */
static int named_descriptor(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0)
        return STDOUT_FILENO;
    if (strcmp(path, "/dev/stderr") == 0)
        return STDERR_FILENO;
    if (strncmp(path, "/dev/fd/", 8) == 0 && path[8] >= '0' && path[8] <= '9') {
        char *end = NULL;
        long number = strtol(path + 8, &end, 10);
        if (*end == '\0' && number <= INT_MAX)
            return (int)number;
    }
    return -1;
}

/* A stream that holds nothing to destroy (a terminal, /dev/null, a pipe) is written
 * directly: renaming over a device node would replace it, for root even /dev/null. */
static bool open_stream(OutputFile *file, int descriptor, char *error, size_t error_size)
{
    file->writer.descriptor = descriptor;
    file->stream = recording_stream(&file->writer, true);
    if (file->stream == NULL) {
        close(descriptor);
        return open_error(error, error_size, file->path, strerror(errno));
    }
    return true;
}

/* The temporary, created exclusively in the target's directory (a rename cannot cross file
 * systems): mkstemp opens with O_CREAT|O_EXCL, which never follows a symlink planted at
 * the name, and draws the name's six characters at random, so it cannot be predicted. */
static bool open_temporary(OutputFile *file, const struct stat *replaced, char *error,
                           size_t error_size)
{
    snprintf(file->temporary_path, sizeof file->temporary_path, "%s.tmp.XXXXXX", file->path);
    /* No signal between creating the file and listing it for the handler to remove. */
    sigset_t every, previous;
    sigfillset(&every);
    pthread_sigmask(SIG_BLOCK, &every, &previous);
    int descriptor = mkstemp(file->temporary_path);
    int saved = errno;
    bool listed = descriptor >= 0 && (file->slot = remember_temporary(file->temporary_path)) >= 0;
    if (descriptor >= 0 && !listed) {
        close(descriptor);
        unlink(file->temporary_path);
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (!listed) {
        file->temporary_path[0] = '\0';
        return open_error(error, error_size, file->path,
                          descriptor >= 0 ? "too many output files at once" : strerror(saved));
    }
    /* mkstemp makes it 0600; a report gets the mode of the file it replaces, or else the
     * mode any new file would get. */
    static mode_t creation_mask = (mode_t)-1;
    if (creation_mask == (mode_t)-1) {
        creation_mask = umask(022);
        umask(creation_mask);
    }
    mode_t mode = replaced != NULL ? replaced->st_mode & 07777 : 0666 & ~creation_mask;
    fcntl(descriptor, F_SETFD, FD_CLOEXEC);
    if (fchmod(descriptor, mode) != 0) {
        saved = errno;
        close(descriptor);
        unlink(file->temporary_path);
        forget_temporary(file->slot);
        file->temporary_path[0] = '\0';
        return open_error(error, error_size, file->path, strerror(saved));
    }
    if (!open_stream(file, descriptor, error, error_size)) {
        unlink(file->temporary_path);
        forget_temporary(file->slot);
        file->temporary_path[0] = '\0';
        return false;
    }
    setvbuf(file->stream, NULL, _IOFBF, 1 << 16);
    return true;
}

bool output_file_open(OutputFile *file, const char *path, char *error, size_t error_size)
{
    memset(file, 0, sizeof *file);
    file->slot = -1;
    file->writer.descriptor = -1;
    if (strlen(path) >= sizeof file->path) {
        snprintf(error, error_size, "%.60s...: path too long", path);
        return false;
    }
    snprintf(file->path, sizeof file->path, "%s", path);
    int named = named_descriptor(path);
    if (named >= 0) {
        int descriptor = fcntl(named, F_DUPFD_CLOEXEC, 3);
        if (descriptor < 0)
            return open_error(error, error_size, path, strerror(errno));
        return open_stream(file, descriptor, error, error_size);
    }
    struct stat target;
    bool exists = stat(path, &target) == 0;
    if (exists) {
        if (S_ISDIR(target.st_mode))
            return open_error(error, error_size, path, "is a directory");
        if (S_ISBLK(target.st_mode))
            return open_error(error, error_size, path, "is a block device");
        if (!S_ISREG(target.st_mode)) {
            int descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
            if (descriptor < 0)
                return open_error(error, error_size, path, strerror(errno));
            return open_stream(file, descriptor, error, error_size);
        }
    }
    return open_temporary(file, exists ? &target : NULL, error, error_size);
}

/* ------------------------------------------------------------------ finishing */

bool output_file_commit(OutputFile *file, char *error, size_t error_size)
{
    const char *failed = "cannot write";
    int saved = 0;
    if (fflush(file->stream) != 0 || ferror(file->stream))
        saved = file->writer.error != 0 ? file->writer.error : EIO;
    /* On disk before the rename makes it the file: a crash leaves the old file or the new
     * one, never an empty one. Devices and pipes have nothing to sync. */
    if (saved == 0 && file->temporary_path[0] != '\0' && fsync(file->writer.descriptor) != 0)
        saved = errno;
    if (fclose(file->stream) != 0 && saved == 0)
        saved = file->writer.error != 0 ? file->writer.error : EIO;
    file->stream = NULL;
    if (file->temporary_path[0] != '\0') {
        if (saved == 0 && rename(file->temporary_path, file->path) != 0) {
            saved = errno;
            failed = "cannot replace";
        }
        if (saved != 0)
            unlink(file->temporary_path);
        forget_temporary(file->slot);
        file->slot = -1;
    }
    if (saved != 0)
        snprintf(error, error_size, "%s: %s: %s", file->path, failed, strerror(saved));
    return saved == 0;
}

void output_file_abandon(OutputFile *file)
{
    if (file->stream == NULL)
        return;
    fclose(file->stream);
    file->stream = NULL;
    if (file->temporary_path[0] != '\0') {
        unlink(file->temporary_path);
        forget_temporary(file->slot);
        file->slot = -1;
    }
}

/* ------------------------------------------------------------------ distinct outputs */

/* What names a file: its device and inode when it exists (through symlinks, and the link
 * itself), and its directory's real path plus its name, for a file not created yet. */
typedef struct {
    bool exists;
    bool shareable; /* a character device: /dev/null may take several outputs */
    dev_t device;
    ino_t inode;
    bool link;
    dev_t link_device;
    ino_t link_inode;
    char *name; /* NULL when the directory cannot be resolved (opening will say why) */
} FileIdentity;

static char *normalized_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash != NULL ? slash + 1 : path;
    if (base[0] == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return NULL; /* a directory: no output can be written there anyway */
    char directory[OUTPUT_PATH_MAX];
    if (slash == NULL)
        snprintf(directory, sizeof directory, ".");
    else if (slash == path)
        snprintf(directory, sizeof directory, "/");
    else
        snprintf(directory, sizeof directory, "%.*s", (int)(slash - path), path);
    char *resolved = realpath(directory, NULL);
    if (resolved == NULL)
        return NULL;
    size_t size = strlen(resolved) + strlen(base) + 2;
    char *name = malloc(size);
    if (name != NULL)
        snprintf(name, size, "%s/%s", strcmp(resolved, "/") == 0 ? "" : resolved, base);
    free(resolved);
    return name;
}

static void identify(const char *path, FileIdentity *identity)
{
    memset(identity, 0, sizeof *identity);
    struct stat info;
    if (stat(path, &info) == 0) {
        identity->exists = true;
        identity->shareable = S_ISCHR(info.st_mode);
        identity->device = info.st_dev;
        identity->inode = info.st_ino;
    }
    if (lstat(path, &info) == 0 && S_ISLNK(info.st_mode)) {
        identity->link = true;
        identity->link_device = info.st_dev;
        identity->link_inode = info.st_ino;
    }
    identity->name = normalized_name(path);
}

static bool same_file(const FileIdentity *a, const FileIdentity *b)
{
    if (a->shareable || b->shareable)
        return false;
    if (a->exists && b->exists && a->device == b->device && a->inode == b->inode)
        return true;
    if (a->link && b->link && a->link_device == b->link_device && a->link_inode == b->link_inode)
        return true;
    return a->name != NULL && b->name != NULL && strcmp(a->name, b->name) == 0;
}

/* base (a real path) followed by rest, a part that does not exist, so holds no symlink:
 * "." and empty components dropped, ".." taking back the component before it. */
static char *append_lexically(const char *base, const char *rest)
{
    size_t size = strlen(base) + strlen(rest) + 2;
    char *name = malloc(size);
    if (name == NULL)
        return NULL;
    snprintf(name, size, "%s", strcmp(base, "/") == 0 ? "" : base);
    size_t length = strlen(name);
    while (*rest != '\0') {
        size_t part = strcspn(rest, "/");
        if (part == 2 && rest[0] == '.' && rest[1] == '.') {
            while (length > 0 && name[length - 1] != '/')
                length--;
            if (length > 0)
                length--; /* the slash before it */
        } else if (part > 0 && !(part == 1 && rest[0] == '.')) {
            name[length++] = '/';
            memcpy(name + length, rest, part);
            length += part;
        }
        name[length] = '\0';
        rest += part;
        while (*rest == '/')
            rest++;
    }
    if (length == 0)
        snprintf(name, size, "/");
    return name;
}

/* path resolved as far as it exists: the real path of its longest existing prefix, then
 * the rest as written ("frames/x.png" before frames/ is made is still inside frames). */
static char *resolved_name(const char *path)
{
    size_t length = strlen(path);
    if (length == 0 || length >= OUTPUT_PATH_MAX)
        return NULL;
    char prefix[OUTPUT_PATH_MAX];
    memcpy(prefix, path, length + 1);
    size_t cut = length; /* prefix is path[0, cut) */
    for (;;) {
        char *resolved = realpath(cut > 0 ? prefix : ".", NULL);
        if (resolved != NULL) {
            char *name = append_lexically(resolved, path + cut);
            free(resolved);
            return name;
        }
        if (cut == 0)
            return NULL;
        while (cut > 0 && prefix[cut - 1] == '/') /* "a//b": the separator, then "a" */
            cut--;
        while (cut > 0 && prefix[cut - 1] != '/')
            cut--;
        if (cut == 1 && prefix[0] == '/') {
            prefix[1] = '\0'; /* the root always resolves */
        } else {
            while (cut > 1 && prefix[cut - 1] == '/')
                cut--;
            prefix[cut] = '\0';
        }
    }
}

/* True when inner lies under the directory outer (both resolved). */
static bool inside(const char *outer, const char *inner)
{
    size_t length = strlen(outer);
    if (length == 1 && outer[0] == '/')
        return inner[0] == '/' && inner[1] != '\0';
    return strncmp(outer, inner, length) == 0 && inner[length] == '/';
}

/* Every file of the list against every output directory of it, by resolved path (so a
 * symlink to the directory, or "d/../d", is the directory too). */
static bool outside_directories(const OutputRole *files, uint32_t count, char *error,
                                size_t error_size)
{
    for (uint32_t d = 0; d < count; d++) {
        if (files[d].path == NULL || !files[d].directory)
            continue;
        char *directory = resolved_name(files[d].path);
        bool clear = true;
        for (uint32_t i = 0; i < count && clear && directory != NULL; i++) {
            if (i == d || files[i].path == NULL)
                continue;
            char *name = resolved_name(files[i].path);
            if (name != NULL && inside(directory, name)) {
                clear = false;
                snprintf(error, error_size,
                         "%s %s is inside the %s directory %s, whose files it could replace or "
                         "be replaced by; put it elsewhere",
                         files[i].role, files[i].path, files[d].role, files[d].path);
            }
            free(name);
        }
        free(directory);
        if (!clear)
            return false;
    }
    return true;
}

bool output_file_check_distinct(const OutputRole *files, uint32_t count, char *error,
                                size_t error_size)
{
    for (uint32_t i = 0; i < count; i++) {
        /* "-" reads as standard output to most users; here it would be a file named "-" */
        if (files[i].output && files[i].path != NULL && strcmp(files[i].path, "-") == 0) {
            snprintf(error, error_size,
                     "%s -: outputs are written to named files, not to standard output (write "
                     "./- for a file named '-')",
                     files[i].role);
            return false;
        }
    }
    if (!outside_directories(files, count, error, error_size))
        return false;
    FileIdentity *identities = calloc(count ? count : 1, sizeof *identities);
    if (identities == NULL) {
        snprintf(error, error_size, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (files[i].path != NULL)
            identify(files[i].path, &identities[i]);
    }
    bool distinct = true;
    for (uint32_t i = 0; i < count && distinct; i++) {
        if (files[i].path == NULL || !files[i].output)
            continue;
        for (uint32_t j = 0; j < count && distinct; j++) {
            if (j == i || files[j].path == NULL || (files[j].output && j < i))
                continue;
            if (!same_file(&identities[i], &identities[j]))
                continue;
            distinct = false;
            if (files[j].output)
                snprintf(error, error_size,
                         "%s %s and %s %s are the same file; give each output its own",
                         files[i].role, files[i].path, files[j].role, files[j].path);
            else
                snprintf(error, error_size,
                         "%s %s is the same file as the %s %s, which it would replace",
                         files[i].role, files[i].path, files[j].role, files[j].path);
        }
    }
    for (uint32_t i = 0; i < count; i++)
        free(identities[i].name);
    free(identities);
    return distinct;
}
