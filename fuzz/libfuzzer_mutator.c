/* libFuzzer's hook for the structure-aware mutator, with libFuzzer's own byte mutator as the
 * fallback. Linked into the libFuzzer builds only. */
#include "mutator.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static size_t
engine_bytes(void *ctx, uint8_t *data, size_t size, size_t max_size)
{
    (void)ctx;
    return LLVMFuzzerMutate(data, size, max_size);
}

size_t
LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    return fuzz_mutate(data, size, max_size, seed, engine_bytes, NULL);
}
