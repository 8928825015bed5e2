// K-quants: 256-element super-blocks split into 16 or 8 sub-blocks with their own quantized
// scale (and min). The element order inside a super-block is ggml's, not the storage order of
// the bits; the comments above each kernel say how they map. Every multiplication is done in
// the same order and precision as ggml's dequantize_row_* (e.g. (d * scale) first, then * q).

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/ScalarKernels.h"

namespace gguf::kernels {

namespace {

// Q4_K / Q5_K: eight 6-bit scales and eight 6-bit mins packed into 12 bytes. Sub-blocks 0-3 keep
// their low 6 bits in bytes 0-3 (scale) and 4-7 (min); sub-blocks 4-7 keep the low 4 bits in the
// nibbles of bytes 8-11 and their top 2 bits in the spare top bits of bytes 0-7.
struct ScaleMin {
    std::uint8_t scale;
    std::uint8_t min;
};

inline ScaleMin scaleMinK4(int j, const std::uint8_t* q)
{
    if (j < 4) {
        return {std::uint8_t(q[j] & 63), std::uint8_t(q[j + 4] & 63)};
    }
    return {std::uint8_t((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4)),
            std::uint8_t((q[j + 4] >> 4) | ((q[j] >> 6) << 4))};
}

}  // namespace

// Q2_K (84 bytes): scales[16] (low nibble scale, high nibble min per 16-element sub-block),
// qs[64], f16 d, f16 dmin. Each 128-element half uses 32 qs bytes; its four 32-element groups are
// the bit pairs at shifts 0, 2, 4, 6, each group = two sub-blocks (bytes 0-15, then 16-31).
// value = (d * scale) * q - (dmin * min).
void dequantizeQ2_K(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q2_K;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        const float dmin = loadF16(src + B::dmin);
        const std::uint8_t* scales = src + B::scales;
        const std::uint8_t* q = src + B::qs;
        int is = 0;
        for (int half = 0; half < 2; ++half, q += 32) {
            for (int shift = 0; shift < 8; shift += 2) {
                for (int part = 0; part < 32; part += 16) {
                    const std::uint8_t sc = scales[is++];
                    const float dl = d * float(sc & 0xF);
                    const float ml = dmin * float(sc >> 4);
                    for (int l = 0; l < 16; ++l) {
                        *dst++ = dl * float((q[part + l] >> shift) & 3) - ml;
                    }
                }
            }
        }
    }
}

// Q3_K (110 bytes): hmask[32] (3rd bit), qs[64] (low 2 bits), scales[12] (sixteen 6-bit scales,
// offset 32), f16 d. Same element order as Q2_K; the hmask bit for element l of group g sits in
// hmask[l] bit g (g = 0..7 over the whole super-block). A clear hmask bit subtracts 4.
// value = (d * (scale - 32)) * (q - (hbit ? 0 : 4)).
void dequantizeQ3_K(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q3_K;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* packed = src + B::scales;
        // Low 4 bits: nibbles of bytes 0-7 (low nibbles first); high 2 bits: bytes 8-11.
        int scales[16];
        for (int j = 0; j < 16; ++j) {
            const int low = j < 8 ? (packed[j] & 0xF) : (packed[j - 8] >> 4);
            const int high = (packed[8 + j % 4] >> (2 * (j / 4))) & 3;
            scales[j] = (low | (high << 4)) - 32;
        }
        const std::uint8_t* hm = src + B::hmask;
        const std::uint8_t* q = src + B::qs;
        int is = 0;
        unsigned mask = 1;
        for (int half = 0; half < 2; ++half, q += 32) {
            for (int shift = 0; shift < 8; shift += 2, mask <<= 1) {
                for (int part = 0; part < 32; part += 16) {
                    const float dl = d * float(scales[is++]);
                    for (int l = 0; l < 16; ++l) {
                        const int low = (q[part + l] >> shift) & 3;
                        const int value = low - ((hm[part + l] & mask) ? 0 : 4);
                        *dst++ = dl * float(value);
                    }
                }
            }
        }
    }
}

// Q4_K (144 bytes): f16 d, f16 dmin, scales[12] (see scaleMinK4), qs[128]. Each 64-element chunk
// uses 32 qs bytes: low nibbles = first 32 elements (sub-block 2c), high nibbles = next 32.
// value = (d * scale) * q - (dmin * min).
void dequantizeQ4_K(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q4_K;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        const float dmin = loadF16(src + B::dmin);
        const std::uint8_t* scales = src + B::scales;
        const std::uint8_t* q = src + B::qs;
        for (int chunk = 0; chunk < 4; ++chunk, q += 32) {
            const ScaleMin lo = scaleMinK4(2 * chunk, scales);
            const ScaleMin hi = scaleMinK4(2 * chunk + 1, scales);
            const float d1 = d * float(lo.scale);
            const float m1 = dmin * float(lo.min);
            const float d2 = d * float(hi.scale);
            const float m2 = dmin * float(hi.min);
            for (int l = 0; l < 32; ++l) {
                *dst++ = d1 * float(q[l] & 0xF) - m1;
            }
            for (int l = 0; l < 32; ++l) {
                *dst++ = d2 * float(q[l] >> 4) - m2;
            }
        }
    }
}

// Q5_K (176 bytes): f16 d, f16 dmin, scales[12], qh[32], qs[128]. As Q4_K plus a 5th bit: for
// chunk c, element l takes qh[l] bit 2c (low half) or bit 2c+1 (high half), worth 16.
void dequantizeQ5_K(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q5_K;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        const float dmin = loadF16(src + B::dmin);
        const std::uint8_t* scales = src + B::scales;
        const std::uint8_t* qh = src + B::qh;
        const std::uint8_t* ql = src + B::qs;
        unsigned u1 = 1;
        unsigned u2 = 2;
        for (int chunk = 0; chunk < 4; ++chunk, ql += 32, u1 <<= 2, u2 <<= 2) {
            const ScaleMin lo = scaleMinK4(2 * chunk, scales);
            const ScaleMin hi = scaleMinK4(2 * chunk + 1, scales);
            const float d1 = d * float(lo.scale);
            const float m1 = dmin * float(lo.min);
            const float d2 = d * float(hi.scale);
            const float m2 = dmin * float(hi.min);
            for (int l = 0; l < 32; ++l) {
                const int value = (ql[l] & 0xF) + ((qh[l] & u1) ? 16 : 0);
                *dst++ = d1 * float(value) - m1;
            }
            for (int l = 0; l < 32; ++l) {
                const int value = (ql[l] >> 4) + ((qh[l] & u2) ? 16 : 0);
                *dst++ = d2 * float(value) - m2;
            }
        }
    }
}

// Q6_K (210 bytes): ql[128] (low 4 bits), qh[64] (high 2 bits), int8 scales[16], f16 d. Per
// 128-element half (64 ql, 32 qh, 8 scales): element l + 32k (k = 0..3) takes the low or high
// nibble of ql[l] / ql[l + 32] and bits 2k..2k+1 of qh[l]; its scale is scales[l / 16 + 2k].
// value = (d * scale) * (q - 32).
void dequantizeQ6_K(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q6_K;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* ql = src + B::ql;
        const std::uint8_t* qh = src + B::qh;
        const std::uint8_t* sc = src + B::scales;
        for (int half = 0; half < 2; ++half, dst += 128, ql += 64, qh += 32, sc += 8) {
            for (int l = 0; l < 32; ++l) {
                const int is = l / 16;
                const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
                const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                dst[l + 0] = d * float(static_cast<std::int8_t>(sc[is + 0])) * float(q1);
                dst[l + 32] = d * float(static_cast<std::int8_t>(sc[is + 2])) * float(q2);
                dst[l + 64] = d * float(static_cast<std::int8_t>(sc[is + 4])) * float(q3);
                dst[l + 96] = d * float(static_cast<std::int8_t>(sc[is + 6])) * float(q4);
            }
        }
    }
}

// Q8_K (292 bytes): f32 d, int8 qs[256], int16 bsums[16] (ignored). value = d * q.
void dequantizeQ8_K(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q8_K;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes, dst += B::elements) {
        const float d = loadF32(src + B::d);
        const std::uint8_t* qs = src + B::qs;
        for (std::size_t j = 0; j < B::elements; ++j) {
            dst[j] = d * float(static_cast<std::int8_t>(qs[j]));
        }
    }
}

}  // namespace gguf::kernels
