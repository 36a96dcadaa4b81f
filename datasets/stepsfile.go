package datasets

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The steps table is written by stepsFile, a column-chunk writer specialised
// for its fixed schema and built from parquet-go's format, encoding and
// thrift packages. The runner writes each observation straight into the
// page buffer (no row values, no copies), every small column is encoded once
// per row group, and the only heavy work left is the byte-stream-split
// transpose and zstd. It writes the same kind of file parquet-go's writer
// does (data pages v2, zstd, the footer's key/value metadata), read back in
// the tests by parquet-go and by apache arrow-go.

// obsPageBytes is the target size of an uncompressed obs page: pages of
// about 2000 Galaxy Express observations compress within 3% of much larger
// ones and keep zstd's working set in cache. A variable for the tests.
var obsPageBytes = 1 << 20

// newZstdEncoder returns the encoder of one worker for the steps table
// (klauspost/compress levels; docs/datasets.md, "Measured sizes and speeds").
func newZstdEncoder(level ZstdLevel) *zstd.Encoder {
	l := zstd.SpeedBetterCompression
	switch level {
	case ZstdFastest:
		l = zstd.SpeedFastest
	case ZstdDefault:
		l = zstd.SpeedDefault
	}
	// Pages are compressed independently and are at most about 1 MiB, so a
	// 2 MiB window changes no output and saves the default 8 MiB history.
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithWindowSize(2<<20),
		zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true), zstd.WithEncoderCRC(false))
	if err != nil {
		panic(err) // only invalid options fail
	}
	return e
}

// chunk is one column chunk of the current row group: its pages, header
// included, and what the footer says about them.
type chunk struct {
	buf          []byte
	dictLen      int // bytes of buf taken by the dictionary page (0: none)
	numValues    int64
	uncompressed int64
	encodings    []format.Encoding
	stats        format.Statistics
}

func (c *chunk) reset() {
	c.buf = c.buf[:0]
	c.dictLen = 0
	c.numValues = 0
	c.uncompressed = 0
	c.encodings = c.encodings[:0]
	c.stats = format.Statistics{}
}

func (c *chunk) addEncoding(e format.Encoding) {
	for _, x := range c.encodings {
		if x == e {
			return
		}
	}
	c.encodings = append(c.encodings, e)
}

// stepsFile writes one steps table to out.
type stepsFile struct {
	out        io.Writer
	off        int64
	err        error
	zenc       *zstd.Encoder
	obsSize    int
	numActions int
	numPlayers int
	split      bool
	kv         []format.KeyValue
	schema     []format.SchemaElement

	// The current row group, column by column.
	groupRows  int // rows per row group
	n          int
	ep         []int64
	step       []int32
	player     []int32
	actionIdx  []int32 // indexes into actionDict
	rewardIdx  []int32 // indexes into rewardDict
	rewardsIdx []int32 // numPlayers per row, indexes into rewardDict
	term       []bool
	trunc      []bool
	maskIdx    []int32
	dict       map[string]int32
	dictVals   []byte
	mask       []byte // the action mask of the row being built
	actionDict dict32
	rewardDict dict32

	obsPage     []byte // obsPageRows observations
	obsPageRows int
	obsN        int // rows in obsPage

	// The search columns (search): the policy of obsPage's rows, a page
	// at a time, and every row's value.
	search      bool
	spolPage    []float32 // spolPageRows rows of numActions
	spolRows    int
	spolN       int       // rows in spolPage
	svalue      []float32 // per row of the row group
	curValue    float32   // the search value of the row being built
	spolScratch []byte

	chunks    [numAllColumns]chunk
	rowGroups []format.RowGroup
	rows      int64

	scratch, zbuf, lvlRep, lvlDef []byte
	v1                            []byte // a v1 page's body (compact files)
	playerDict                    dict32 // compact files: player is dictionary-encoded
	levels                        []uint8
	dropObs                       bool // runMeta.dropObsPages
	compact                       bool // runMeta.compact: no obs and action_mask columns
}

func newStepsFile(out io.Writer, zenc *zstd.Encoder, m *runMeta) *stepsFile {
	g := stepsRowGroupRows
	s := &stepsFile{
		groupRows:  g,
		out:        out,
		zenc:       zenc,
		obsSize:    m.obsSize,
		numActions: m.numActions,
		numPlayers: m.numPlayers,
		split:      m.obsEncoding != ObsPlain,
		dropObs:    m.dropObsPages,
		compact:    m.compact,
		search:     m.search,
		schema:     stepsSchemaElements(m.obsSize, m.numActions, m.compact, m.search),
		ep:         make([]int64, g),
		step:       make([]int32, g),
		player:     make([]int32, g),
		actionIdx:  make([]int32, g),
		rewardIdx:  make([]int32, g),
		rewardsIdx: make([]int32, g*m.numPlayers),
		term:       make([]bool, g),
		trunc:      make([]bool, g),
		maskIdx:    make([]int32, g),
		dict:       make(map[string]int32),
		mask:       make([]byte, m.numActions),
	}
	s.obsPageRows = min(g, max(64, obsPageBytes/max(1, m.obsSize)))
	if m.compact {
		s.obsPageRows, s.obsSize = 1, 0 // obsSlot is empty and never flushed
	}
	s.obsPage = make([]byte, s.obsPageRows*s.obsSize)
	if s.search {
		s.spolRows = min(g, max(64, obsPageBytes/max(1, 4*m.numActions)))
		s.spolPage = make([]float32, s.spolRows*m.numActions)
		s.svalue = make([]float32, g)
		s.curValue = float32(math.NaN())
	}
	s.write([]byte("PAR1"))
	return s
}

// reset prepares s, which wrote a file of the same run (or was abandoned
// half way), for writing another to out: the buffers are kept.
func (s *stepsFile) reset(out io.Writer) {
	s.out, s.off, s.err = out, 0, nil
	s.kv = nil
	s.n, s.obsN, s.rows = 0, 0, 0
	if s.search {
		s.spolN = 0
		clear(s.searchSlot())
		s.curValue = float32(math.NaN())
	}
	clear(s.dict)
	s.dictVals = s.dictVals[:0]
	s.actionDict.reset()
	s.rewardDict.reset()
	for i := range s.chunks {
		s.chunks[i].reset()
	}
	s.rowGroups = nil
	s.write([]byte("PAR1"))
}

// stepsSchemaElements returns the flattened Parquet schema of the steps
// table (see the Col* constants); compact leaves out obs and action_mask,
// search adds search_policy and search_value.
func stepsSchemaElements(obsSize, numActions int, compact, search bool) []format.SchemaElement {
	req := thrift.New(format.Required)
	leaf := func(name string, t format.Type) format.SchemaElement {
		return format.SchemaElement{Name: name, Type: thrift.New(t), RepetitionType: req}
	}
	flba := func(name string, n int) format.SchemaElement {
		e := leaf(name, format.FixedLenByteArray)
		e.TypeLength = thrift.New(int32(n))
		return e
	}
	el := []format.SchemaElement{
		{Name: "steps", NumChildren: thrift.New(int32(numStepColumns))},
		leaf(ColEpisodeID, format.Int64),
		leaf(ColStep, format.Int32),
		leaf(ColPlayer, format.Int32),
		flba(ColObs, obsSize),
		flba(ColActionMask, numActions),
		leaf(ColAction, format.Int32),
		leaf(ColReward, format.Float),
		{Name: ColRewards, RepetitionType: req, NumChildren: thrift.New(int32(1)),
			ConvertedType: thrift.New(deprecated.List), LogicalType: format.LogicalType{Value: &format.ListType{}}},
		{Name: "list", RepetitionType: thrift.New(format.Repeated), NumChildren: thrift.New(int32(1))},
		leaf("element", format.Float),
		leaf(ColTerminated, format.Boolean),
		leaf(ColTruncated, format.Boolean),
	}
	n := numStepColumns
	if search {
		n += 2
		el = append(el,
			format.SchemaElement{Name: ColSearchPolicy, RepetitionType: req, NumChildren: thrift.New(int32(1)),
				ConvertedType: thrift.New(deprecated.List), LogicalType: format.LogicalType{Value: &format.ListType{}}},
			format.SchemaElement{Name: "list", RepetitionType: thrift.New(format.Repeated), NumChildren: thrift.New(int32(1))},
			leaf("element", format.Float),
			leaf(ColSearchValue, format.Float))
	}
	if compact {
		n -= 2
		el = append(el[:1+colObs], el[1+colActionMask+1:]...)
	}
	el[0].NumChildren = thrift.New(int32(n))
	return el
}

// skipColumn reports whether column i is left out of s's files.
func (s *stepsFile) skipColumn(i int) bool {
	return (s.compact && (i == colObs || i == colActionMask)) ||
		(!s.search && (i == colSearchPolicy || i == colSearchValue))
}

// columnPaths are the leaf paths, in column order.
var columnPaths = [numAllColumns][]string{
	{ColEpisodeID}, {ColStep}, {ColPlayer}, {ColObs}, {ColActionMask}, {ColAction},
	{ColReward}, {ColRewards, "list", "element"}, {ColTerminated}, {ColTruncated},
	{ColSearchPolicy, "list", "element"}, {ColSearchValue},
}

var columnTypes = [numAllColumns]format.Type{
	format.Int64, format.Int32, format.Int32, format.FixedLenByteArray, format.FixedLenByteArray,
	format.Int32, format.Float, format.Float, format.Boolean, format.Boolean,
	format.Float, format.Float,
}

// setKeyValue sets a footer key (keys keep their first position).
func (s *stepsFile) setKeyValue(key, value string) {
	for i := range s.kv {
		if s.kv[i].Key == key {
			s.kv[i].Value = value
			return
		}
	}
	s.kv = append(s.kv, format.KeyValue{Key: key, Value: value})
}

func (s *stepsFile) write(p []byte) {
	if s.err != nil {
		return
	}
	n, err := s.out.Write(p)
	s.off += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	s.err = err
}

// obsSlot returns the observation buffer of the row being built.
func (s *stepsFile) obsSlot() []byte {
	return s.obsPage[s.obsN*s.obsSize : (s.obsN+1)*s.obsSize]
}

// maskSlot returns the action-mask buffer of the row being built.
func (s *stepsFile) maskSlot() []byte { return s.mask }

// searchSlot returns the search_policy buffer (numActions) of the row
// being built, all zeros until the caller writes it; only with search.
func (s *stepsFile) searchSlot() []float32 {
	return s.spolPage[s.spolN*s.numActions : (s.spolN+1)*s.numActions]
}

// setSearchValue sets the search_value of the row being built (NaN until
// set); only with search.
func (s *stepsFile) setSearchValue(v float32) { s.curValue = v }

// commit completes the row whose obs and mask slots were filled; rewards
// has one entry per player, or is nil for zeros.
func (s *stepsFile) commit(ep int64, step, player, action int32, rewards []float64, term, trunc bool) error {
	i := s.n
	s.ep[i], s.step[i], s.player[i] = ep, step, player
	s.actionIdx[i] = s.actionDict.index(uint32(action))
	s.term[i], s.trunc[i] = term, trunc
	rw := s.rewardsIdx[i*s.numPlayers : (i+1)*s.numPlayers]
	var own float32
	if rewards == nil {
		z := s.rewardDict.index(0)
		for j := range rw {
			rw[j] = z
		}
	} else {
		for j, r := range rewards {
			rw[j] = s.rewardDict.index(math.Float32bits(float32(r)))
		}
		if player >= 0 && int(player) < len(rewards) {
			own = float32(rewards[player])
		}
	}
	s.rewardIdx[i] = s.rewardDict.index(math.Float32bits(own))
	s.n++
	if s.search {
		s.svalue[i] = s.curValue
		s.curValue = float32(math.NaN())
		s.spolN++
		if s.spolN == s.spolRows {
			s.flushSearchPage()
		}
		clear(s.searchSlot())
	}
	if !s.compact {
		idx, ok := s.dict[string(s.mask)]
		if !ok {
			idx = int32(len(s.dict))
			s.dict[string(s.mask)] = idx
			s.dictVals = append(s.dictVals, s.mask...)
		}
		s.maskIdx[i] = idx
		s.obsN++
		if s.obsN == s.obsPageRows {
			s.flushObsPage()
		}
	}
	if s.n == s.groupRows {
		return s.flushRowGroup()
	}
	return s.err
}

// page appends a data page (v2) to c: levels as given, values compressed.
func (s *stepsFile) page(c *chunk, numValues, numRows int, enc format.Encoding, rep, def, values []byte) {
	s.zbuf = s.zenc.EncodeAll(values, s.zbuf[:0])
	crc := crc32.Update(0, crc32.IEEETable, rep)
	crc = crc32.Update(crc, crc32.IEEETable, def)
	crc = crc32.Update(crc, crc32.IEEETable, s.zbuf)
	h := format.PageHeader{
		Type:                 format.DataPageV2,
		UncompressedPageSize: int32(len(rep) + len(def) + len(values)),
		CompressedPageSize:   int32(len(rep) + len(def) + len(s.zbuf)),
		CRC:                  int32(crc),
		DataPageHeaderV2: thrift.New(format.DataPageHeaderV2{
			NumValues:                  int32(numValues),
			NumRows:                    int32(numRows),
			Encoding:                   enc,
			DefinitionLevelsByteLength: int32(len(def)),
			RepetitionLevelsByteLength: int32(len(rep)),
			IsCompressed:               thrift.New(true),
		}),
	}
	hdr := marshalThrift(&h)
	c.buf = append(c.buf, hdr...)
	c.buf = append(c.buf, rep...)
	c.buf = append(c.buf, def...)
	c.buf = append(c.buf, s.zbuf...)
	c.uncompressed += int64(len(hdr)) + int64(h.UncompressedPageSize)
	c.numValues += int64(numValues)
	c.addEncoding(enc)
}

// pageV1 appends a data page (v1) to c: the levels (each RLE, behind its
// 4-byte length) and the values compressed together. A compact file writes
// the rewards column so: a v2 page leaves the levels uncompressed, and
// with numPlayers values per row they were most of a compact file.
func (s *stepsFile) pageV1(c *chunk, numValues int, enc format.Encoding, rep, def, values []byte) {
	s.v1 = s.v1[:0]
	s.v1 = binary.LittleEndian.AppendUint32(s.v1, uint32(len(rep)))
	s.v1 = append(s.v1, rep...)
	s.v1 = binary.LittleEndian.AppendUint32(s.v1, uint32(len(def)))
	s.v1 = append(s.v1, def...)
	s.v1 = append(s.v1, values...)
	s.zbuf = s.zenc.EncodeAll(s.v1, s.zbuf[:0])
	h := format.PageHeader{
		Type:                 format.DataPage,
		UncompressedPageSize: int32(len(s.v1)),
		CompressedPageSize:   int32(len(s.zbuf)),
		CRC:                  int32(crc32.ChecksumIEEE(s.zbuf)),
		DataPageHeader: thrift.New(format.DataPageHeader{
			NumValues:               int32(numValues),
			Encoding:                enc,
			DefinitionLevelEncoding: format.RLE,
			RepetitionLevelEncoding: format.RLE,
		}),
	}
	hdr := marshalThrift(&h)
	c.buf = append(c.buf, hdr...)
	c.buf = append(c.buf, s.zbuf...)
	c.uncompressed += int64(len(hdr)) + int64(len(s.v1))
	c.numValues += int64(numValues)
	c.addEncoding(enc)
}

// dictPage starts c with a PLAIN dictionary page of n values.
func (s *stepsFile) dictPage(c *chunk, n int, values []byte) {
	s.zbuf = s.zenc.EncodeAll(values, s.zbuf[:0])
	h := format.PageHeader{
		Type:                 format.DictionaryPage,
		UncompressedPageSize: int32(len(values)),
		CompressedPageSize:   int32(len(s.zbuf)),
		CRC:                  int32(crc32.ChecksumIEEE(s.zbuf)),
		DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: int32(n), Encoding: format.Plain}),
	}
	hdr := marshalThrift(&h)
	c.buf = append(c.buf, hdr...)
	c.buf = append(c.buf, s.zbuf...)
	c.dictLen = len(c.buf)
	c.uncompressed += int64(len(hdr)) + int64(len(values))
	c.addEncoding(format.Plain)
}

func marshalThrift(v any) []byte {
	b, err := thrift.Marshal(new(thrift.CompactProtocol), v)
	if err != nil {
		panic(err) // the format structs always encode
	}
	return b
}

// flushObsPage compresses the buffered observations into an obs page.
func (s *stepsFile) flushObsPage() {
	if s.obsN == 0 {
		return
	}
	data := s.obsPage[:s.obsN*s.obsSize]
	enc := format.Plain
	if s.split {
		s.scratch = grow(s.scratch, len(data))
		bssTranspose(s.scratch, data, s.obsN, s.obsSize)
		data = s.scratch
		enc = format.ByteStreamSplit
	}
	if s.dropObs {
		s.obsN = 0
		return
	}
	s.page(&s.chunks[colObs], s.obsN, s.obsN, enc, nil, nil, data)
	s.obsN = 0
}

// flushSearchPage compresses the buffered search policies into a page of
// the search_policy column: a required list of numActions required floats
// per row, PLAIN.
func (s *stepsFile) flushSearchPage() {
	if s.spolN == 0 {
		return
	}
	rows, na := s.spolN, s.numActions
	nv := rows * na
	s.levels = growLevels(s.levels, nv)
	for i := range s.levels {
		s.levels[i] = 1
		if i%na == 0 {
			s.levels[i] = 0
		}
	}
	lv := &rle.Encoding{BitWidth: 1}
	var err error
	s.lvlRep, err = lv.EncodeLevels(s.lvlRep[:0], s.levels)
	s.must(err)
	for i := range s.levels {
		s.levels[i] = 1
	}
	s.lvlDef, err = lv.EncodeLevels(s.lvlDef[:0], s.levels)
	s.must(err)
	s.spolScratch = s.spolScratch[:0]
	for _, x := range s.spolPage[:nv] {
		s.spolScratch = binary.LittleEndian.AppendUint32(s.spolScratch, math.Float32bits(x))
	}
	c := &s.chunks[colSearchPolicy]
	s.page(c, nv, rows, format.Plain, s.lvlRep, s.lvlDef, s.spolScratch)
	c.addEncoding(format.RLE)
	s.spolN = 0
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// flushRowGroup encodes the small columns, writes every column chunk of
// the row group in order and records it for the footer.
func (s *stepsFile) flushRowGroup() error {
	n := s.n
	if n == 0 {
		return s.err
	}
	s.flushObsPage()
	var err error
	be := new(delta.BinaryPackedEncoding)

	s.scratch, err = be.EncodeInt64(s.scratch[:0], s.ep[:n])
	s.must(err)
	s.page(&s.chunks[colEpisodeID], n, n, format.DeltaBinaryPacked, nil, nil, s.scratch)
	s.chunks[colEpisodeID].stats = statsInt64(s.ep[:n])
	cols := []struct {
		col int
		v   []int32
	}{{colStep, s.step[:n]}, {colPlayer, s.player[:n]}}
	if s.compact {
		// The players' turn order is a short cycle: a dictionary's
		// indices compress to 30% less than its deltas.
		cols = cols[:1]
		idx := s.maskIdx[:n] // unused in compact files
		for i, p := range s.player[:n] {
			idx[i] = s.playerDict.index(uint32(p))
		}
		s.dictColumn(&s.chunks[colPlayer], &s.playerDict, idx, n, nil, nil)
		s.chunks[colPlayer].stats = statsInt32(s.player[:n])
		s.playerDict.reset()
	}
	for _, c := range cols {
		s.scratch, err = be.EncodeInt32(s.scratch[:0], c.v)
		s.must(err)
		s.page(&s.chunks[c.col], n, n, format.DeltaBinaryPacked, nil, nil, s.scratch)
		s.chunks[c.col].stats = statsInt32(c.v)
	}

	if !s.compact {
		mc := &s.chunks[colActionMask]
		s.dictPage(mc, len(s.dict), s.dictVals)
		s.scratch, err = new(rle.DictionaryEncoding).EncodeInt32(s.scratch[:0], s.maskIdx[:n])
		s.must(err)
		s.page(mc, n, n, format.RLEDictionary, nil, nil, s.scratch)
	}

	s.dictColumn(&s.chunks[colAction], &s.actionDict, s.actionIdx[:n], n, nil, nil)
	s.chunks[colAction].stats = s.actionDict.statsInt32()
	s.dictColumn(&s.chunks[colReward], &s.rewardDict, s.rewardIdx[:n], n, nil, nil)
	s.chunks[colReward].stats = s.rewardDict.statsFloat()

	// rewards: a required list of required floats, numPlayers per row;
	// max repetition and definition levels are both 1.
	nv := n * s.numPlayers
	s.levels = growLevels(s.levels, nv)
	for i := range s.levels {
		s.levels[i] = 1
		if i%s.numPlayers == 0 {
			s.levels[i] = 0
		}
	}
	lv := &rle.Encoding{BitWidth: 1}
	s.lvlRep, err = lv.EncodeLevels(s.lvlRep[:0], s.levels)
	s.must(err)
	for i := range s.levels {
		s.levels[i] = 1
	}
	s.lvlDef, err = lv.EncodeLevels(s.lvlDef[:0], s.levels)
	s.must(err)
	rc := &s.chunks[colRewards]
	s.dictColumn(rc, &s.rewardDict, s.rewardsIdx[:nv], n, s.lvlRep, s.lvlDef)
	rc.addEncoding(format.RLE)
	rc.stats = s.rewardDict.statsFloat()

	s.scratch = appendBools(s.scratch[:0], s.term[:n])
	s.page(&s.chunks[colTerminated], n, n, format.Plain, nil, nil, s.scratch)
	s.scratch = appendBools(s.scratch[:0], s.trunc[:n])
	s.page(&s.chunks[colTruncated], n, n, format.Plain, nil, nil, s.scratch)

	if s.search {
		s.flushSearchPage()
		clear(s.searchSlot()) // the next row's slot, at the page's start again
		s.scratch = s.scratch[:0]
		for _, x := range s.svalue[:n] {
			s.scratch = binary.LittleEndian.AppendUint32(s.scratch, math.Float32bits(x))
		}
		s.page(&s.chunks[colSearchValue], n, n, format.Plain, nil, nil, s.scratch)
		s.chunks[colSearchValue].stats = statsFloat(s.svalue[:n])
	}

	rg := format.RowGroup{NumRows: int64(n), FileOffset: s.off, Ordinal: int16(len(s.rowGroups))}
	for i := range s.chunks {
		if s.skipColumn(i) {
			continue
		}
		c := &s.chunks[i]
		start := s.off
		md := format.ColumnMetaData{
			Type:                  columnTypes[i],
			Encoding:              append([]format.Encoding(nil), c.encodings...),
			PathInSchema:          columnPaths[i],
			Codec:                 format.Zstd,
			NumValues:             c.numValues,
			TotalUncompressedSize: c.uncompressed,
			TotalCompressedSize:   int64(len(c.buf)),
			DataPageOffset:        start + int64(c.dictLen),
			Statistics:            c.stats,
		}
		if c.dictLen > 0 {
			md.DictionaryPageOffset = start
		}
		s.write(c.buf)
		rg.Columns = append(rg.Columns, format.ColumnChunk{FileOffset: start, MetaData: md})
		rg.TotalByteSize += c.uncompressed
		rg.TotalCompressedSize += int64(len(c.buf))
		c.reset()
	}
	s.rowGroups = append(s.rowGroups, rg)
	s.rows += int64(n)
	s.n = 0
	clear(s.dict)
	s.dictVals = s.dictVals[:0]
	s.actionDict.reset()
	s.rewardDict.reset()
	return s.err
}

// dictColumn writes a dictionary-encoded column: d's values as the
// dictionary page, then idx as one RLE_DICTIONARY data page of numRows rows.
func (s *stepsFile) dictColumn(c *chunk, d *dict32, idx []int32, numRows int, rep, def []byte) {
	s.scratch = s.scratch[:0]
	for _, v := range d.vals {
		s.scratch = binary.LittleEndian.AppendUint32(s.scratch, v)
	}
	s.dictPage(c, len(d.vals), s.scratch)
	var err error
	s.scratch, err = new(rle.DictionaryEncoding).EncodeInt32(s.scratch[:0], idx)
	s.must(err)
	if s.compact && rep != nil {
		s.pageV1(c, len(idx), format.RLEDictionary, rep, def, s.scratch)
		return
	}
	s.page(c, len(idx), numRows, format.RLEDictionary, rep, def, s.scratch)
}

// dict32 is the dictionary of a 4-byte column (int32 or float32 bits) in
// one row group: values in order of first appearance.
type dict32 struct {
	small [1024]int32 // index+1 of the values -1..1022, 0: absent
	m     map[uint32]int32
	vals  []uint32
}

// index returns v's dictionary index, adding it if new.
func (d *dict32) index(v uint32) int32 {
	if k := v + 1; k < uint32(len(d.small)) {
		if i := d.small[k]; i > 0 {
			return i - 1
		}
		i := int32(len(d.vals))
		d.small[k] = i + 1
		d.vals = append(d.vals, v)
		return i
	}
	if d.m == nil {
		d.m = make(map[uint32]int32)
	}
	i, ok := d.m[v]
	if !ok {
		i = int32(len(d.vals))
		d.m[v] = i
		d.vals = append(d.vals, v)
	}
	return i
}

func (d *dict32) reset() {
	for _, v := range d.vals {
		if k := v + 1; k < uint32(len(d.small)) {
			d.small[k] = 0
		}
	}
	clear(d.m)
	d.vals = d.vals[:0]
}

func (d *dict32) statsInt32() format.Statistics {
	v := make([]int32, len(d.vals))
	for i, x := range d.vals {
		v[i] = int32(x)
	}
	return statsInt32(v)
}

func (d *dict32) statsFloat() format.Statistics {
	v := make([]float32, len(d.vals))
	for i, x := range d.vals {
		v[i] = math.Float32frombits(x)
	}
	return statsFloat(v)
}

// close writes the last row group and the footer.
func (s *stepsFile) close() error {
	if err := s.flushRowGroup(); err != nil {
		return err
	}
	cols := numStepColumns
	if s.compact {
		cols -= 2
	}
	if s.search {
		cols += 2
	}
	orders := make([]format.ColumnOrder, cols)
	for i := range orders {
		orders[i] = format.ColumnOrder{Value: &format.TypeDefinedOrder{}}
	}
	md := format.FileMetaData{
		Version:          2,
		Schema:           s.schema,
		NumRows:          s.rows,
		RowGroups:        s.rowGroups,
		KeyValueMetadata: s.kv,
		CreatedBy:        createdBy,
		ColumnOrders:     orders,
	}
	footer := marshalThrift(&md)
	s.write(footer)
	s.write(binary.LittleEndian.AppendUint32(nil, uint32(len(footer))))
	s.write([]byte("PAR1"))
	return s.err
}

// must records an encoder error (they fail only on impossible inputs).
func (s *stepsFile) must(err error) {
	if err != nil && s.err == nil {
		s.err = err
	}
}

func growLevels(b []uint8, n int) []uint8 {
	if cap(b) < n {
		return make([]uint8, n)
	}
	return b[:n]
}

// appendBools appends v PLAIN-encoded: bit-packed, least significant bit first.
func appendBools(b []byte, v []bool) []byte {
	start := len(b)
	b = append(b, make([]byte, (len(v)+7)/8)...)
	for i, x := range v {
		if x {
			b[start+i/8] |= 1 << (i % 8)
		}
	}
	return b
}

func statsInt64(v []int64) format.Statistics {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return format.Statistics{
		MinValue: binary.LittleEndian.AppendUint64(nil, uint64(lo)),
		MaxValue: binary.LittleEndian.AppendUint64(nil, uint64(hi)),
	}
}

func statsInt32(v []int32) format.Statistics {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return format.Statistics{
		MinValue: binary.LittleEndian.AppendUint32(nil, uint32(lo)),
		MaxValue: binary.LittleEndian.AppendUint32(nil, uint32(hi)),
	}
}

// statsFloat returns min/max statistics, none when a value is NaN (the
// writer never produces one, but the statistics must not lie).
func statsFloat(v []float32) format.Statistics {
	if len(v) == 0 {
		return format.Statistics{}
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		if x != x {
			return format.Statistics{}
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo == 0 {
		lo = float32(math.Copysign(0, -1)) // the spec: a zero min is written as -0.0
	}
	if hi == 0 {
		hi = 0
	}
	return format.Statistics{
		MinValue: binary.LittleEndian.AppendUint32(nil, math.Float32bits(lo)),
		MaxValue: binary.LittleEndian.AppendUint32(nil, math.Float32bits(hi)),
	}
}
