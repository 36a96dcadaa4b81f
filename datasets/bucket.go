package datasets

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file://
	_ "gocloud.dev/blob/s3blob"   // s3://
	"gocloud.dev/gcerrors"
)

// IsURL reports whether out names a bucket (scheme://...) rather than a
// directory.
func IsURL(out string) bool { return strings.Contains(out, "://") }

// OpenBucket opens the bucket of a dataset URL with gocloud.dev/blob:
//
//   - s3://bucket/prefix: any S3-compatible service. Credentials, region
//     and endpoint come from the AWS SDK's usual sources
//     (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a pod's IAM
//     role; AWS_REGION; AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3) or from
//     the URL's query (region=, endpoint=, use_path_style=true,
//     disable_https=true).
//   - gs://bucket/prefix: Google Cloud Storage with Application Default
//     Credentials (GOOGLE_APPLICATION_CREDENTIALS, workload identity), in
//     binaries built with -tags gcs (the container image; the Google
//     client triples the binary, so the default build and the Python
//     wheels leave it out: GCS also serves S3 clients with HMAC keys).
//   - azblob://container/prefix: Azure Blob Storage (AZURE_STORAGE_ACCOUNT
//     with AZURE_STORAGE_KEY, a SAS token or a managed identity), in
//     binaries built with -tags azure (the container image).
//   - file:///dir: a local directory through the same code (tests); its
//     temporary files are in os.TempDir unless the URL says
//     ?no_tmp_dir=true (needed when TMPDIR is on another mount).
//
// The path after the bucket is a prefix under which the dataset's layout
// (manifest.json, steps/, episodes/) lies; the returned bucket is rooted
// there. The caller closes it.
func OpenBucket(ctx context.Context, rawURL string) (*blob.Bucket, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, &ConfigError{Field: "Out", Reason: "not a URL: " + rawURL, Err: err}
	}
	if u.Scheme == "file" {
		// No .attrs sidecar files: the tree is that of a local dataset.
		q := u.Query()
		if !q.Has("metadata") {
			q.Set("metadata", "skip")
		}
		fu := *u
		fu.RawQuery = q.Encode()
		b, err := blob.OpenBucket(ctx, fu.String())
		if err != nil {
			return nil, &ConfigError{Field: "Out", Reason: "cannot open " + rawURL, Err: err}
		}
		return b, nil
	}
	prefix := strings.Trim(u.Path, "/")
	root := *u
	root.Path, root.RawPath = "", ""
	if !slices.Contains(blob.DefaultURLMux().BucketSchemes(), u.Scheme) {
		reason := "unknown scheme " + strconv.Quote(u.Scheme) + " in " + rawURL
		if tag, ok := optionalSchemes[u.Scheme]; ok {
			reason = u.Scheme + ":// needs a galaxygym built with -tags " + tag + " (the container image of the Dockerfile has it)"
		}
		return nil, &ConfigError{Field: "Out", Reason: reason + "; this binary opens " +
			strings.Join(blob.DefaultURLMux().BucketSchemes(), ", ")}
	}
	b, err := blob.OpenBucket(ctx, root.String())
	if err != nil {
		return nil, &ConfigError{Field: "Out", Reason: "cannot open " + rawURL, Err: err}
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix+"/")
	}
	return b, nil
}

// optionalSchemes are the bucket schemes whose driver is built only with a
// build tag, by tag.
var optionalSchemes = map[string]string{"gs": "gcs", "azblob": "azure"}

// checkBucket fails, before any episode is played, when the bucket does not
// exist or cannot be listed with the credentials found.
func checkBucket(ctx context.Context, b *blob.Bucket, rawURL string) error {
	ok, err := b.IsAccessible(ctx)
	if err != nil {
		return &ConfigError{Field: "Out", Reason: "cannot list " + rawURL +
			": check the credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE; " +
			"GOOGLE_APPLICATION_CREDENTIALS; AZURE_STORAGE_ACCOUNT/AZURE_STORAGE_KEY), the endpoint and the region", Err: err}
	}
	if !ok {
		return &ConfigError{Field: "Out", Reason: "the bucket of " + rawURL + " does not exist (create it first)"}
	}
	return nil
}

// openOut opens the output of Generate: the bucket when Out is a URL.
func (r *run) openOut(ctx context.Context) error {
	if !IsURL(r.cfg.Out) {
		return nil
	}
	if r.cfg.fs != nil {
		return &ConfigError{Field: "Out", Reason: "a URL cannot use a test file system"}
	}
	bfs, err := openBlobFS(ctx, r.cfg.Out)
	if err != nil {
		return err
	}
	r.fs, r.dir = bfs, ""
	return nil
}

// closeOut closes the bucket opened by openOut.
func (r *run) closeOut() {
	if b, ok := r.fs.(*blobFS); ok {
		b.close()
	}
}

// openBlobFS opens and checks the bucket of rawURL.
func openBlobFS(ctx context.Context, rawURL string) (*blobFS, error) {
	b, err := OpenBucket(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	if err := checkBucket(ctx, b, rawURL); err != nil {
		b.Close()
		return nil, err
	}
	return &blobFS{ctx: ctx, b: b, url: strings.TrimSuffix(rawURL, "/"), pending: map[string]*blobFile{}}, nil
}

// blobFS is a fileSystem over a bucket. Names are object keys relative to
// the dataset's root ("steps/part-00000.parquet"). A file created under a
// temporary name (".NAME.tmp") is streamed to the object NAME through a
// blob.Writer (a multipart upload on S3) that is committed only by Rename
// to NAME: until then the object is not visible (an earlier version stays
// as it was), Remove of the temporary name aborts the upload, and a
// process killed mid-upload leaves no object (S3 keeps the incomplete
// multipart upload, invisible, until the bucket's lifecycle rule
// AbortIncompleteMultipartUpload removes it).
type blobFS struct {
	ctx context.Context
	b   *blob.Bucket
	url string

	mu      sync.Mutex
	pending map[string]*blobFile // by temporary name
	// recent holds the last objects read into memory (at most
	// recentObjects), by key: verifying a part reads each of its two
	// files two or three times (footer, rows, SHA-256).
	recent []recentObject
}

type recentObject struct {
	key  string
	data []byte
}

const recentObjects = 2

func (b *blobFS) cached(key string) ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.recent {
		if r.key == key {
			return r.data, true
		}
	}
	return nil, false
}

func (b *blobFS) remember(key string, data []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.recent = append(b.recent, recentObject{key, data})
	if len(b.recent) > recentObjects {
		b.recent = b.recent[1:]
	}
}

// forget drops key, about to change, from recent.
func (b *blobFS) forget(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.recent = slices.DeleteFunc(b.recent, func(r recentObject) bool { return r.key == key })
}

func (b *blobFS) close() {
	b.mu.Lock()
	for name, f := range b.pending {
		f.abort()
		delete(b.pending, name)
	}
	b.mu.Unlock()
	b.b.Close()
}

// objectKey maps a name to its key ("./x" and "x" alike).
func objectKey(name string) string { return strings.TrimPrefix(path.Clean("/"+name), "/") }

// finalName returns the object a temporary name stands for.
func finalName(name string) (string, bool) {
	dir, base := path.Split(objectKey(name))
	if !strings.HasPrefix(base, ".") || !strings.HasSuffix(base, ".tmp") || len(base) <= len(".tmp")+1 {
		return "", false
	}
	base = strings.TrimSuffix(strings.TrimPrefix(base, "."), ".tmp")
	return dir + strings.TrimSuffix(base, "."+procToken), true
}

// notFound turns the bucket's NotFound into fs.ErrNotExist.
func (b *blobFS) wrap(op, key string, err error) error {
	if err == nil {
		return nil
	}
	if gcerrors.Code(err) == gcerrors.NotFound {
		err = fs.ErrNotExist
	}
	return &fs.PathError{Op: op, Path: b.url + "/" + key, Err: err}
}

// blobFile is an object being written.
type blobFile struct {
	w      *blob.Writer
	cancel context.CancelFunc
	key    string
	done   bool
}

func (f *blobFile) Write(p []byte) (int, error) { return f.w.Write(p) }
func (f *blobFile) Sync() error                 { return nil }

// Close does not commit the object: Rename does.
func (f *blobFile) Close() error { return nil }

func (f *blobFile) abort() {
	if !f.done {
		f.done = true
		f.cancel()
		f.w.Close() // returns the cancellation; nothing is written
	}
}

func contentType(key string) string {
	switch path.Ext(key) {
	case ".parquet":
		return "application/vnd.apache.parquet"
	case ".json":
		return "application/json"
	}
	return "application/octet-stream"
}

func (b *blobFS) Create(name string) (writableFile, error) {
	key, ok := finalName(name)
	if !ok {
		return nil, &fs.PathError{Op: "create", Path: b.url + "/" + objectKey(name), Err: errors.New("only temporary names are created in a bucket")}
	}
	b.forget(key)
	ctx, cancel := context.WithCancel(b.ctx)
	w, err := b.b.NewWriter(ctx, key, &blob.WriterOptions{ContentType: contentType(key)})
	if err != nil {
		cancel()
		return nil, b.wrap("create", key, err)
	}
	f := &blobFile{w: w, cancel: cancel, key: key}
	b.mu.Lock()
	if old := b.pending[objectKey(name)]; old != nil {
		old.abort()
	}
	b.pending[objectKey(name)] = f
	b.mu.Unlock()
	return f, nil
}

// Rename commits the upload of oldname to newname.
func (b *blobFS) Rename(oldname, newname string) error {
	b.mu.Lock()
	f := b.pending[objectKey(oldname)]
	delete(b.pending, objectKey(oldname))
	b.mu.Unlock()
	if f == nil || f.key != objectKey(newname) {
		return &fs.PathError{Op: "rename", Path: b.url + "/" + objectKey(oldname), Err: fs.ErrNotExist}
	}
	f.done = true
	b.forget(f.key)
	err := f.w.Close()
	f.cancel()
	return b.wrap("upload", f.key, err)
}

// Remove aborts the upload of a temporary name, or deletes an object.
func (b *blobFS) Remove(name string) error {
	b.mu.Lock()
	f := b.pending[objectKey(name)]
	delete(b.pending, objectKey(name))
	b.mu.Unlock()
	if f != nil {
		f.abort()
		return nil
	}
	if _, tmp := finalName(name); tmp {
		return nil // temporary names are never objects
	}
	b.forget(objectKey(name))
	return b.wrap("delete", objectKey(name), b.b.Delete(b.ctx, objectKey(name)))
}

func (b *blobFS) MkdirAll(string) error { return nil }
func (b *blobFS) SyncDir(string) error  { return nil }

func (b *blobFS) ReadFile(name string) ([]byte, error) {
	data, err := b.b.ReadAll(b.ctx, objectKey(name))
	return data, b.wrap("read", objectKey(name), err)
}

// ReadDir lists the objects directly under name.
func (b *blobFS) ReadDir(name string) ([]string, error) {
	prefix := objectKey(name) + "/"
	if prefix == "/" {
		prefix = ""
	}
	var names []string
	it := b.b.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
	for {
		obj, err := it.Next(b.ctx)
		if err == io.EOF {
			return names, nil
		}
		if err != nil {
			return names, b.wrap("list", prefix, err)
		}
		if !obj.IsDir {
			names = append(names, strings.TrimPrefix(obj.Key, prefix))
		}
	}
}

// RemoveAll deletes every object under name.
func (b *blobFS) RemoveAll(name string) error {
	prefix := objectKey(name) + "/"
	it := b.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(b.ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return b.wrap("list", prefix, err)
		}
		b.forget(obj.Key)
		if err := b.b.Delete(b.ctx, obj.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return b.wrap("delete", obj.Key, err)
		}
	}
}

// memLimit is the largest object Open reads into memory; larger ones are
// copied to a temporary file (parts are read whole to be verified anyway).
const memLimit = 64 << 20

// Open downloads an object for reading: one request, then local reads
// (the Parquet reader's many small ReadAt calls would each be a request).
func (b *blobFS) Open(name string) (readableFile, error) {
	key := objectKey(name)
	if data, ok := b.cached(key); ok {
		return &memFile{bytes.NewReader(data)}, nil
	}
	r, err := b.b.NewReader(b.ctx, key, nil)
	if err != nil {
		return nil, b.wrap("open", key, err)
	}
	defer r.Close()
	if r.Size() <= memLimit {
		data := make([]byte, r.Size())
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, b.wrap("read", key, err)
		}
		b.remember(key, data)
		return &memFile{bytes.NewReader(data)}, nil
	}
	f, err := os.CreateTemp("", "galaxygym-part-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // gone when closed
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return nil, b.wrap("read", key, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return osFile{f}, nil
}

// memFile is an object read into memory.
type memFile struct{ *bytes.Reader }

func (m *memFile) Close() error         { return nil }
func (m *memFile) Size() (int64, error) { return m.Reader.Size(), nil }

// isNotExist reports whether err says a file or object does not exist.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// OpenURL opens a finished dataset in a directory or a bucket (see
// [OpenBucket]); Dataset.Close releases the bucket. Errors are those of
// [Open], or a [*ConfigError] when the bucket cannot be reached.
func OpenURL(ctx context.Context, out string) (*Dataset, error) {
	if !IsURL(out) {
		return Open(out)
	}
	bfs, err := openBlobFS(ctx, out)
	if err != nil {
		return nil, err
	}
	m, err := readManifest(bfs, "")
	if err != nil {
		bfs.close()
		return nil, err
	}
	return &Dataset{Dir: "", Manifest: m, fs: bfs}, nil
}

// Close releases the bucket of a dataset opened by [OpenURL] (nothing for
// a directory).
func (d *Dataset) Close() error {
	if b, ok := d.fs.(*blobFS); ok {
		b.close()
	}
	return nil
}

var _ fileSystem = (*blobFS)(nil)
