package env

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// ObsField names one part of an observation: the bytes
// [Offset, Offset+Size()) of the flat uint8 vector, read as a uint8 array
// of Shape (row-major). A game describes its observation once as a list of
// fields (an [ObsLayout]) that its encoder, its determinizer and its agents
// all read, and that the spec exports to Python as observation_layout.
type ObsField struct {
	// Name is the field's key, unique in its layout, in snake_case.
	Name string `json:"-"`
	// Offset is the first byte of the field in the observation.
	Offset int `json:"offset"`
	// Shape is the field's array shape; its product is the field's size in
	// bytes. A scalar byte has Shape [1].
	Shape []int `json:"shape"`
	// DType is always "uint8" (a little-endian uint16 counter is a field of
	// shape [2] whose meaning says so).
	DType string `json:"dtype"`
	// Meaning says what the bytes hold: encoding (one-hot, count, code),
	// range and the frame (seat-relative, the observer's side).
	Meaning string `json:"meaning"`
	// Classes, when not 0, says that each byte of the field is a code, a
	// category and not a magnitude (a card kind + 1, a seat + 1), from 0 to
	// Classes-1: a network should read it one-hot (the weights format's
	// codes, docs/policy-format.md). 0: a count, a flag, a one-hot already.
	Classes int `json:"classes,omitempty"`
}

// Size is the number of bytes of the field: the product of its Shape.
func (f ObsField) Size() int {
	n := 1
	for _, d := range f.Shape {
		n *= d
	}
	return n
}

// End is the offset just past the field.
func (f ObsField) End() int { return f.Offset + f.Size() }

// Field returns a uint8 field of shape at offset: the literal a game's
// layout table is written with.
func Field(name string, offset int, shape []int, meaning string) ObsField {
	return ObsField{Name: name, Offset: offset, Shape: shape, DType: "uint8", Meaning: meaning}
}

// CodeField returns a field of shape at offset whose every byte is a code
// 0 to classes-1 ([ObsField.Classes]).
func CodeField(name string, offset int, shape []int, classes int, meaning string) ObsField {
	f := Field(name, offset, shape, meaning)
	f.Classes = classes
	return f
}

// ObsLayout is an observation's named fields in offset order. In JSON it
// is one object, name -> {offset, shape, dtype, meaning}, keys in offset
// order, so that a reader can decode an observation without the game's
// source.
type ObsLayout []ObsField

// Field returns the field named name; it panics when there is none (a
// layout is fixed data, so a missing name is a programming error).
func (l ObsLayout) Field(name string) ObsField {
	for _, f := range l {
		if f.Name == name {
			return f
		}
	}
	panic(fmt.Sprintf("env: observation layout has no field %q", name))
}

// Offset returns the offset of the field named name; it panics like Field.
func (l ObsLayout) Offset(name string) int { return l.Field(name).Offset }

// Clone returns a deep copy of the layout (shapes included).
func (l ObsLayout) Clone() ObsLayout {
	if l == nil {
		return nil
	}
	out := slices.Clone(l)
	for i := range out {
		out[i].Shape = slices.Clone(out[i].Shape)
	}
	return out
}

// Check returns an [*ObsLayoutError] unless the fields tile [0, obsSize)
// exactly: in offset order, each starting where the previous ends, none
// empty, names unique and non-empty, dtype uint8, classes 0 or 2 to 256,
// the last ending at obsSize.
func (l ObsLayout) Check(obsSize int) error {
	at := 0
	seen := map[string]bool{}
	for i, f := range l {
		switch {
		case f.Name == "":
			return &ObsLayoutError{i, f.Name, "no name"}
		case seen[f.Name]:
			return &ObsLayoutError{i, f.Name, "name used twice"}
		case f.DType != "uint8":
			return &ObsLayoutError{i, f.Name, fmt.Sprintf("dtype %q, want uint8", f.DType)}
		case len(f.Shape) == 0 || f.Size() <= 0:
			return &ObsLayoutError{i, f.Name, fmt.Sprintf("shape %v holds no bytes", f.Shape)}
		case f.Classes != 0 && (f.Classes < 2 || f.Classes > 256):
			return &ObsLayoutError{i, f.Name, fmt.Sprintf("classes %d: want 0 (no code) or 2 to 256", f.Classes)}
		case f.Offset < at:
			return &ObsLayoutError{i, f.Name, fmt.Sprintf("offset %d overlaps the previous field (which ends at %d)", f.Offset, at)}
		case f.Offset > at:
			return &ObsLayoutError{i, f.Name, fmt.Sprintf("offset %d leaves bytes %d-%d undescribed", f.Offset, at, f.Offset-1)}
		case f.End() > obsSize:
			return &ObsLayoutError{i, f.Name, fmt.Sprintf("ends at %d, past the observation's %d bytes", f.End(), obsSize)}
		}
		seen[f.Name] = true
		at = f.End()
	}
	if at != obsSize {
		return &ObsLayoutError{len(l), "", fmt.Sprintf("the fields end at %d, the observation has %d bytes", at, obsSize)}
	}
	return nil
}

// ObsLayoutError says why an [ObsLayout] does not tile its observation.
type ObsLayoutError struct {
	Index  int    // the field's index in the layout (len(layout) for the end)
	Name   string // the field's name, "" at the end
	Reason string
}

func (e *ObsLayoutError) Error() string {
	if e.Name == "" {
		return "env: observation layout: " + e.Reason
	}
	return fmt.Sprintf("env: observation layout: field %d %q: %s", e.Index, e.Name, e.Reason)
}

// MarshalJSON writes the layout as one object, name -> {offset, shape,
// dtype, meaning, and classes when not 0}, in offset order.
func (l ObsLayout) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.Name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the object MarshalJSON writes; the fields come back
// in offset order.
func (l *ObsLayout) UnmarshalJSON(data []byte) error {
	var m map[string]ObsField
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("env: observation layout: %w", err)
	}
	out := make(ObsLayout, 0, len(m))
	for name, f := range m {
		f.Name = name
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b ObsField) int { return a.Offset - b.Offset })
	*l = out
	return nil
}
