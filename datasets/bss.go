package datasets

import "encoding/binary"

// bssTranspose writes the BYTE_STREAM_SPLIT encoding (Parquet format
// 2.11: byte k of every value goes to stream k) of the n values of size
// bytes in src: dst[s*n+i] = src[i*size+s]. It transposes 8x8 byte blocks
// in registers; parquet-go's encoder gathers one byte at a time with a
// stride of the value size, which for 503-byte observations costs as much
// as the zstd compression that follows. TestBSSMatchesParquetGo checks
// that both produce the same bytes.
func bssTranspose(dst, src []byte, n, size int) {
	// Blocks of 64 values: for every 8 bytes of the values, eight 8x8
	// transposes fill one 64-byte run (a cache line) of 8 streams.
	i := 0
	for ; i+64 <= n; i += 64 {
		s := 0
		for ; s+8 <= size; s += 8 {
			for k := 0; k < 64; k += 8 {
				transpose8(dst, src, i+k, s, n, size)
			}
		}
		for ; s < size; s++ {
			d := dst[s*n+i : s*n+i+64]
			for k := range d {
				d[k] = src[(i+k)*size+s]
			}
		}
	}
	for ; i+8 <= n; i += 8 {
		s := 0
		for ; s+8 <= size; s += 8 {
			transpose8(dst, src, i, s, n, size)
		}
		for ; s < size; s++ {
			d := dst[s*n+i : s*n+i+8]
			for k := range d {
				d[k] = src[(i+k)*size+s]
			}
		}
	}
	for ; i < n; i++ {
		row := src[i*size : (i+1)*size]
		for s, b := range row {
			dst[s*n+i] = b
		}
	}
}

// transpose8 moves bytes s..s+7 of values i..i+7 to streams s..s+7.
func transpose8(dst, src []byte, i, s, n, size int) {
	r := src[i*size+s:]
	x0 := binary.LittleEndian.Uint64(r)
	x1 := binary.LittleEndian.Uint64(r[size:])
	x2 := binary.LittleEndian.Uint64(r[2*size:])
	x3 := binary.LittleEndian.Uint64(r[3*size:])
	x4 := binary.LittleEndian.Uint64(r[4*size:])
	x5 := binary.LittleEndian.Uint64(r[5*size:])
	x6 := binary.LittleEndian.Uint64(r[6*size:])
	x7 := binary.LittleEndian.Uint64(r[7*size:])
	if x0|x1|x2|x3|x4|x5|x6|x7 != 0 {
		// Transpose the 8x8 byte matrix (row j = xj, column c = byte c) by
		// swapping 4x4, then 2x2, then 1x1 blocks.
		const m4, m2, m1 = 0x00000000FFFFFFFF, 0x0000FFFF0000FFFF, 0x00FF00FF00FF00FF
		t := ((x0 >> 32) ^ x4) & m4
		x4 ^= t
		x0 ^= t << 32
		t = ((x1 >> 32) ^ x5) & m4
		x5 ^= t
		x1 ^= t << 32
		t = ((x2 >> 32) ^ x6) & m4
		x6 ^= t
		x2 ^= t << 32
		t = ((x3 >> 32) ^ x7) & m4
		x7 ^= t
		x3 ^= t << 32

		t = ((x0 >> 16) ^ x2) & m2
		x2 ^= t
		x0 ^= t << 16
		t = ((x1 >> 16) ^ x3) & m2
		x3 ^= t
		x1 ^= t << 16
		t = ((x4 >> 16) ^ x6) & m2
		x6 ^= t
		x4 ^= t << 16
		t = ((x5 >> 16) ^ x7) & m2
		x7 ^= t
		x5 ^= t << 16

		t = ((x0 >> 8) ^ x1) & m1
		x1 ^= t
		x0 ^= t << 8
		t = ((x2 >> 8) ^ x3) & m1
		x3 ^= t
		x2 ^= t << 8
		t = ((x4 >> 8) ^ x5) & m1
		x5 ^= t
		x4 ^= t << 8
		t = ((x6 >> 8) ^ x7) & m1
		x7 ^= t
		x6 ^= t << 8
	}
	o := dst[s*n+i:]
	binary.LittleEndian.PutUint64(o, x0)
	binary.LittleEndian.PutUint64(o[n:], x1)
	binary.LittleEndian.PutUint64(o[2*n:], x2)
	binary.LittleEndian.PutUint64(o[3*n:], x3)
	binary.LittleEndian.PutUint64(o[4*n:], x4)
	binary.LittleEndian.PutUint64(o[5*n:], x5)
	binary.LittleEndian.PutUint64(o[6*n:], x6)
	binary.LittleEndian.PutUint64(o[7*n:], x7)
}
