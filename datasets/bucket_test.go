package datasets

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"gocloud.dev/blob"
)

// fakeS3 is an S3-compatible server on loopback (gofakes3, in memory)
// that refuses requests signed with another access key than AccessKey,
// as S3 does (gofakes3 itself checks no signature).
type fakeS3 struct {
	URL       string
	AccessKey string
	backend   *s3mem.Backend
	srv       *httptest.Server
}

// newFakeS3 starts a server holding the given buckets and points the AWS
// SDK's environment variables at it with valid credentials.
func newFakeS3(t testing.TB, buckets ...string) *fakeS3 {
	t.Helper()
	f := &fakeS3{AccessKey: "galaxygym-test", backend: s3mem.New()}
	for _, b := range buckets {
		if err := f.backend.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	faker := gofakes3.New(f.backend, gofakes3.WithAutoBucket(false))
	h := faker.Server()
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Authorization"), "Credential="+f.AccessKey+"/") {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code>`+
				`<Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>`)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	f.URL = f.srv.URL
	for k, v := range f.Env() {
		t.Setenv(k, v)
	}
	return f
}

// Env returns the environment variables that point the AWS SDK at f.
func (f *fakeS3) Env() map[string]string {
	return map[string]string{
		"AWS_ACCESS_KEY_ID":                f.AccessKey,
		"AWS_SECRET_ACCESS_KEY":            "secret",
		"AWS_REGION":                       "us-east-1",
		"AWS_ENDPOINT_URL":                 f.URL,
		"AWS_EC2_METADATA_DISABLED":        "true",
		"AWS_CONFIG_FILE":                  "/nonexistent",
		"AWS_SHARED_CREDENTIALS_FILE":      "/nonexistent",
		"AWS_RESPONSE_CHECKSUM_VALIDATION": "when_required",
	}
}

// objects returns every object under prefix by key relative to it.
func (f *fakeS3) objects(t testing.TB, url string) map[string][]byte {
	t.Helper()
	b, err := OpenBucket(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	out := map[string][]byte{}
	it := b.List(nil)
	for {
		obj, err := it.Next(context.Background())
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := b.ReadAll(context.Background(), obj.Key)
		if err != nil {
			t.Fatal(err)
		}
		out[obj.Key] = data
	}
}

func putObject(t testing.TB, url, key string, data []byte) {
	t.Helper()
	b, err := OpenBucket(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.WriteAll(context.Background(), key, data, &blob.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
}

// bucketConfig is smallConfig with a fixed created_by, so that a local
// and a bucket run write the same manifest.
func bucketConfig(out string) Config {
	c := smallConfig(out)
	c.CommandLine = "galaxygym generate (test)"
	return c
}

const s3URL = "s3://data/runs/express?use_path_style=true"

func TestBucketSameBytesAsLocal(t *testing.T) {
	smallGroups(t)
	f := newFakeS3(t, "data")
	dir := t.TempDir()
	local := generate(t, bucketConfig(dir))
	remote := generate(t, bucketConfig(s3URL))
	want := readTree(t, dir)
	got := f.objects(t, s3URL)
	sameTree(t, "s3 vs local", want, got)
	if !slices.Equal(local.Manifest.Parts, remote.Manifest.Parts) {
		t.Errorf("manifest parts differ:\n%v\n%v", local.Manifest.Parts, remote.Manifest.Parts)
	}
	if _, ok := got["manifest.json"]; !ok || len(got) != 1+2*len(local.Manifest.Parts) {
		t.Errorf("objects %v: want manifest.json and the parts only", slices.Sorted(maps.Keys(got)))
	}
	// Read back and verified from the bucket.
	d, err := OpenURL(context.Background(), s3URL)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Verify(); err != nil {
		t.Errorf("Verify: %v", err)
	}
	n := 0
	for s, err := range d.Steps() {
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Obs) != local.Manifest.EnvSpec.ObsSize() {
			t.Fatalf("obs of %d bytes", len(s.Obs))
		}
		n++
	}
	if int64(n) != local.Manifest.TotalSteps+local.Manifest.TotalEpisodes {
		t.Errorf("read %d steps rows from the bucket, want %d", n, local.Manifest.TotalSteps+local.Manifest.TotalEpisodes)
	}
	// A second run keeps everything.
	again := generate(t, bucketConfig(s3URL))
	if again.PartsKept != 3 || again.PartsWritten != 0 {
		t.Errorf("rerun: kept %d written %d, want 3 and 0", again.PartsKept, again.PartsWritten)
	}
	sameTree(t, "s3 rerun", want, f.objects(t, s3URL))
}

func TestBucketResumeAndCorruption(t *testing.T) {
	smallGroups(t)
	f := newFakeS3(t, "data")
	dir := t.TempDir()
	generate(t, bucketConfig(dir))
	want := readTree(t, dir)

	// An interrupted run: part 1 finished with its checksum record, part 0
	// finished too but corrupted afterwards, part 2 never written.
	ctx, cancel := context.WithCancel(context.Background())
	cfg := bucketConfig(s3URL)
	cfg.Workers = 1
	cfg.Progress = func(p Progress) {
		if p.PartsDone == 2 {
			cancel()
		}
	}
	if _, err := Generate(ctx, cfg); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("cancelled Generate = %v, want ErrInterrupted", err)
	}
	got := f.objects(t, s3URL)
	if _, ok := got["manifest.json"]; ok {
		t.Fatal("an interrupted run wrote manifest.json")
	}
	for key := range got {
		if strings.Contains(key, "part-00002") {
			t.Errorf("unfinished part visible: %s", key)
		}
	}
	steps0 := bytes.Clone(got["steps/part-00000.parquet"])
	steps0[len(steps0)/2] ^= 0xff
	putObject(t, s3URL, "steps/part-00000.parquet", steps0)

	res := generate(t, bucketConfig(s3URL))
	if res.PartsKept != 1 || res.PartsWritten != 2 {
		t.Errorf("resume: kept %d written %d, want 1 (part 1) and 2 (the corrupted part 0, part 2)", res.PartsKept, res.PartsWritten)
	}
	sameTree(t, "resumed s3 vs local", want, f.objects(t, s3URL))

	// Corruption after the manifest: Verify names the object.
	putObject(t, s3URL, "episodes/part-00002.parquet", []byte("not parquet"))
	d, err := OpenURL(context.Background(), s3URL)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var fe *FormatError
	if err := d.Verify(); !errors.As(err, &fe) || !strings.Contains(fe.Path, "episodes/part-00002.parquet") {
		t.Errorf("Verify of a corrupted object = %v, want a *FormatError naming it", err)
	}
}

// playedNothing returns a Progress callback that fails t when an episode
// is played.
func playedNothing(t *testing.T) func(Progress) {
	return func(p Progress) {
		if p.Episodes > 0 {
			t.Errorf("an episode was played")
		}
	}
}

func TestBucketErrors(t *testing.T) {
	f := newFakeS3(t, "data")
	try := func(url string) error {
		cfg := bucketConfig(url)
		cfg.Progress = playedNothing(t)
		_, err := Generate(context.Background(), cfg)
		return err
	}
	var ce *ConfigError
	if err := try("s3://missing/x?use_path_style=true"); !errors.As(err, &ce) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing bucket: %v, want a *ConfigError saying it does not exist", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "wrong")
	if err := try(s3URL); !errors.As(err, &ce) || !strings.Contains(err.Error(), "credentials") ||
		!strings.Contains(err.Error(), "InvalidAccessKeyId") {
		t.Errorf("wrong credentials: %v, want a *ConfigError about credentials", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	if err := try(s3URL); !errors.As(err, &ce) || !strings.Contains(err.Error(), "credentials") {
		t.Errorf("no credentials: %v, want a *ConfigError about credentials", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", f.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	if err := try("ftp://data/x"); !errors.As(err, &ce) {
		t.Errorf("unknown scheme: %v, want a *ConfigError", err)
	}
	if got := f.objects(t, s3URL); len(got) != 0 {
		t.Errorf("refused runs wrote %v", slices.Sorted(maps.Keys(got)))
	}
}

// TestShardsMergeToOneRun runs four shards separately, in a directory and
// in a bucket, and checks that the merge is the dataset of one run.
func TestShardsMergeToOneRun(t *testing.T) {
	smallGroups(t)
	f := newFakeS3(t, "data")
	dir := t.TempDir()
	one := bucketConfig(dir)
	one.Episodes, one.EpisodesPerPart = 500, 50 // 10 parts: shards of 2 and 3
	generate(t, one)
	want := readTree(t, dir)

	for _, out := range []string{filepath.Join(t.TempDir(), "sharded"), "s3://data/sharded?use_path_style=true"} {
		for _, shard := range []int{3, 1, 0} {
			cfg := one
			cfg.Out, cfg.Shard, cfg.Shards = out, shard, 4
			res := generate(t, cfg)
			lo, hi := ShardParts(10, shard, 4)
			if res.PartsWritten != hi-lo || res.Manifest != nil {
				t.Errorf("%s shard %d: %d parts written, want %d and no manifest", out, shard, res.PartsWritten, hi-lo)
			}
		}
		// A shard run twice keeps its parts.
		cfg := one
		cfg.Out, cfg.Shard, cfg.Shards = out, 1, 4
		if res := generate(t, cfg); res.PartsWritten != 0 || res.PartsKept != 3 {
			t.Errorf("%s shard 1 again: wrote %d kept %d, want 0 and 3", out, res.PartsWritten, res.PartsKept)
		}
		var mp *MissingPartsError
		if _, err := Merge(context.Background(), out); !errors.As(err, &mp) || !slices.Equal(mp.Shards, []int{2}) ||
			!slices.Equal(mp.Parts, []int{5, 6}) {
			t.Errorf("%s: Merge without shard 2 = %v, want parts 5-6 of shard 2 missing", out, err)
		}
		cfg.Shard = 2
		generate(t, cfg)
		if _, err := Merge(context.Background(), out); err != nil {
			t.Fatalf("%s: Merge: %v", out, err)
		}
		var got map[string][]byte
		if IsURL(out) {
			got = f.objects(t, out)
		} else {
			got = readTree(t, out)
		}
		sameTree(t, out+": merged shards vs one run", want, got)
		if _, err := Merge(context.Background(), out); err != nil {
			t.Errorf("%s: Merge of a merged dataset: %v", out, err)
		}
	}
	// Another run's shard is refused.
	cfg := one
	cfg.Out, cfg.Shard, cfg.Shards, cfg.Seed = filepath.Join(t.TempDir(), "x"), 0, 4, 7
	generate(t, cfg)
	cfg.Seed, cfg.Shard = 8, 1
	if _, err := Generate(context.Background(), cfg); !errors.Is(err, ErrMismatch) {
		t.Errorf("a shard of another seed: %v, want ErrMismatch", err)
	}
	cfg.Shard = 4
	var ce *ConfigError
	if _, err := Generate(context.Background(), cfg); !errors.As(err, &ce) {
		t.Errorf("shard 4 of 4: %v, want a *ConfigError", err)
	}
}

// TestBlobFSCommitOnRename writes objects large enough for multipart
// uploads: nothing is visible before Rename, an aborted upload leaves
// nothing, a committed one holds the bytes written.
func TestBlobFSCommitOnRename(t *testing.T) {
	f := newFakeS3(t, "data")
	bfs, err := openBlobFS(context.Background(), s3URL)
	if err != nil {
		t.Fatal(err)
	}
	defer bfs.close()
	data := make([]byte, 12<<20) // three 5 MiB upload parts
	for i := range data {
		data[i] = byte(i*7919 + i>>11)
	}
	tmp := filepath.Join(StepsDir, tmpName(4))
	for _, commit := range []bool{false, true} {
		w, err := bfs.Create(tmp)
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off < len(data); off += 1 << 20 {
			if _, err := w.Write(data[off : off+1<<20]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := f.objects(t, s3URL); len(got) != 0 {
			t.Fatalf("visible before Rename: %v", slices.Sorted(maps.Keys(got)))
		}
		if !commit {
			if err := bfs.Remove(tmp); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := bfs.Rename(tmp, filepath.Join(StepsDir, partName(4))); err != nil {
			t.Fatal(err)
		}
	}
	got := f.objects(t, s3URL)
	if len(got) != 1 || !bytes.Equal(got["steps/part-00004.parquet"], data) {
		t.Errorf("after an aborted and a committed upload: %v, want the committed object only", slices.Sorted(maps.Keys(got)))
	}
}

// TestBucketFileURL writes through gocloud's file driver: the same tree as
// a plain directory (no sidecar files), resumed alike.
func TestBucketFileURL(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	generate(t, bucketConfig(dir))
	generate(t, bucketConfig("file://"+other))
	sameTree(t, "file:// vs directory", readTree(t, dir), readTree(t, other))
	if res := generate(t, bucketConfig("file://"+other)); res.PartsKept != 3 {
		t.Errorf("file:// rerun kept %d parts, want 3", res.PartsKept)
	}
}
