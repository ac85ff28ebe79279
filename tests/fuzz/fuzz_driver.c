/* Runs a libFuzzer harness without libFuzzer: `fuzz_driver RUNS SEED [FILE...]` feeds it
 * each FILE (a corpus or a crash to replay), then RUNS random inputs of up to 64 bytes from
 * splitmix64(SEED), so any compiler's sanitizer build (ASan+UBSan: -DIDEMSIM_SANITIZE=ON)
 * can run it in CTest, the same inputs every time. Prints each input that it starts as hex
 * when IDEMSIM_FUZZ_VERBOSE is set, so a crash names its input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void show(const uint8_t *data, size_t size)
{
    if (getenv("IDEMSIM_FUZZ_VERBOSE") == NULL)
        return;
    for (size_t i = 0; i < size; i++)
        fprintf(stderr, "%02x", data[i]);
    fputc('\n', stderr);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s RUNS SEED [FILE...]\n", argv[0]);
        return 2;
    }
    long runs = strtol(argv[1], NULL, 10);
    uint64_t state = strtoull(argv[2], NULL, 10);
    for (int i = 3; i < argc; i++) {
        FILE *file = fopen(argv[i], "rb");
        if (file == NULL) {
            perror(argv[i]);
            return 2;
        }
        static uint8_t input[1 << 16];
        size_t size = fread(input, 1, sizeof input, file);
        fclose(file);
        show(input, size);
        LLVMFuzzerTestOneInput(input, size);
    }
    for (long r = 0; r < runs; r++) {
        uint8_t input[64];
        size_t size = (size_t)(splitmix64(&state) % (sizeof input + 1));
        for (size_t i = 0; i < size; i++)
            input[i] = (uint8_t)splitmix64(&state);
        show(input, size);
        LLVMFuzzerTestOneInput(input, size);
    }
    printf("%ld random inputs (seed %s) and %d files: no crash\n", runs, argv[2], argc - 3);
    return 0;
}
