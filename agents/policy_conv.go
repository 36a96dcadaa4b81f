package agents

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// convLayer is one conv{i} layer of a weights file: a 2-D convolution with
// an odd square kernel, stride 1 and circular padding (k-1)/2 over the
// board's Height x Width cells, computed as im2col then one matrix product.
type convLayer struct {
	in, out, k int
	wt         *mat.Dense // (in*k*k) x out: row c*k*k + di*k + dj, column o = weight[o, c, di, dj]
	b          []float64  // out
	nb         []int      // cells*k*k: nb[cell*k*k + di*k + dj] = the cell at offset (di-r, dj-r), wrapped
}

// convs reads the board of the metadata and the conv layers conv0,
// conv1, ... (no gap), and sets n.in0, layer 0's input size.
func (r *policyReader) convs(n *policyNet) error {
	hasConv := false
	for k := range r.f.keys {
		if m := convKey.FindStringSubmatch(k); m != nil {
			hasConv = true
		}
	}
	if n.meta == nil || n.meta.Board == nil {
		if hasConv {
			return r.fail("conv0.weight", ErrPolicyMeta, nil, "conv layers need a board in meta (format version 2)")
		}
		return nil
	}
	b := n.meta.Board
	cells := b.Height * b.Width
	if b.Offset+b.Planes*cells > n.sizes[0] {
		return r.fail("meta", ErrPolicyShape, nil, "board %+v: %d planes of %d cells from %d do not fit %d observation elements",
			*b, b.Planes, cells, b.Offset, n.sizes[0])
	}
	n.board = b
	numConv := 0
	for r.f.has(fmt.Sprintf("conv%d.weight", numConv)) {
		numConv++
	}
	for k := range r.f.keys {
		if m := convKey.FindStringSubmatch(k); m != nil {
			var i int
			if _, err := fmt.Sscan(m[1], &i); err != nil || i >= numConv {
				return r.fail(fmt.Sprintf("conv%d.weight", numConv), ErrPolicyMissing, nil, "missing (the file has %s)", k)
			}
		}
	}
	channels := b.Planes
	for i := range numConv {
		name := fmt.Sprintf("conv%d.weight", i)
		w, shape, err := r.floats32(name, -1, channels, -1, -1)
		if err != nil {
			return err
		}
		out, k := shape[0], shape[2]
		if shape[3] != k || k%2 == 0 || k > min(b.Height, b.Width)*2+1 {
			return r.fail(name, ErrPolicyShape, nil, "shape %s: want a square odd kernel (out, %d, k, k)", shapeString(shape), channels)
		}
		bias, _, err := r.floats32(fmt.Sprintf("conv%d.bias", i), out)
		if err != nil {
			return err
		}
		kk := k * k
		t := make([]float64, channels*kk*out)
		for o := range out {
			for c := range channels {
				for j := range kk {
					t[(c*kk+j)*out+o] = w[(o*channels+c)*kk+j]
				}
			}
		}
		nb := make([]int, cells*kk)
		half := (k - 1) / 2
		for row := range b.Height {
			for col := range b.Width {
				for di := range k {
					for dj := range k {
						rr := ((row+di-half)%b.Height + b.Height) % b.Height
						cc := ((col+dj-half)%b.Width + b.Width) % b.Width
						nb[(row*b.Width+col)*kk+di*k+dj] = rr*b.Width + cc
					}
				}
			}
		}
		n.conv = append(n.conv, convLayer{in: channels, out: out, k: k, wt: mat.NewDense(channels*kk, out, t), b: bias, nb: nb})
		channels = out
	}
	n.in0 = channels*cells + n.sizes[0] - b.Planes*cells
	return nil
}

// convBuffers are a Policy's own work space for a board network.
type convBuffers struct {
	feat *mat.VecDense // layer 0's input: the flattened conv output, then the scalar features
	act  []*mat.Dense  // act[0]: the centred board (cells x planes); act[i+1]: conv i's output (cells x out)
	col  []*mat.Dense  // col[i]: conv i's im2col matrix (cells x in*k*k)
}

func (n *policyNet) newConvBuffers() convBuffers {
	if n.board == nil {
		return convBuffers{}
	}
	cells := n.board.Height * n.board.Width
	cb := convBuffers{feat: mat.NewVecDense(n.feat0, nil), act: []*mat.Dense{mat.NewDense(cells, n.board.Planes, nil)}}
	for _, c := range n.conv {
		cb.col = append(cb.col, mat.NewDense(cells, c.in*c.k*c.k, nil))
		cb.act = append(cb.act, mat.NewDense(cells, c.out, nil))
	}
	return cb
}

// boardFeatures computes p.feat, layer 0's input, from obs: the board
// planes (scaled by obs_scale) translated so that the first nonzero byte of
// the centre plane lies at cell 0, through the conv layers (activation
// after each), flattened as (channel, row, column), then the scaled
// observation elements outside the board, in order. It allocates nothing.
func (p *Policy) boardFeatures(obs []uint8) {
	n := p.net
	b := n.board
	cells := b.Height * b.Width
	sr, sc := 0, 0
	if b.CenterPlane >= 0 {
		plane := obs[b.Offset+b.CenterPlane*cells : b.Offset+(b.CenterPlane+1)*cells]
		for sq, o := range plane {
			if o != 0 {
				sr, sc = sq/b.Width, sq%b.Width
				break
			}
		}
	}
	a := p.act[0].RawMatrix()
	for row := range b.Height {
		src0 := ((row + sr) % b.Height) * b.Width
		for col := range b.Width {
			cell := row*b.Width + col
			src := b.Offset + src0 + (col+sc)%b.Width
			for pl := range b.Planes {
				j := src + pl*cells
				a.Data[cell*a.Stride+pl] = float64(obs[j]) * n.scale[j]
			}
		}
	}
	for i, c := range n.conv {
		kk := c.k * c.k
		col := p.col[i].RawMatrix()
		for cell := range cells {
			dst := col.Data[cell*col.Stride : cell*col.Stride+col.Cols]
			nb := c.nb[cell*kk : (cell+1)*kk]
			for ch := range c.in {
				d := dst[ch*kk : (ch+1)*kk]
				for t, src := range nb {
					d[t] = a.Data[src*a.Stride+ch]
				}
			}
		}
		out := p.act[i+1].RawMatrix()
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, col, c.wt.RawMatrix(), 0, out)
		for cell := range cells {
			row := out.Data[cell*out.Stride : cell*out.Stride+out.Cols]
			for o, x := range row {
				x += c.b[o]
				if n.relu {
					row[o] = max(x, 0)
				} else {
					row[o] = math.Tanh(x)
				}
			}
		}
		a = out
	}
	feat := p.feat.RawVector().Data
	k := 0
	for ch := range a.Cols {
		for cell := range cells {
			feat[k] = a.Data[cell*a.Stride+ch]
			k++
		}
	}
	for j := range b.Offset {
		feat[k] = float64(obs[j]) * n.scale[j]
		k++
	}
	for j := b.Offset + b.Planes*cells; j < len(obs); j++ {
		feat[k] = float64(obs[j]) * n.scale[j]
		k++
	}
}
