package main

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/galaxygym/galaxygym/datasets"
)

// s3Env starts an S3-compatible server on loopback (gofakes3, in memory,
// with bucket "data") and returns the environment that points the AWS SDK
// of a child process at it.
func s3Env(t *testing.T) []string {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("data"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend, gofakes3.WithAutoBucket(false)).Server())
	t.Cleanup(srv.Close)
	env := map[string]string{
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-east-1",
		"AWS_ENDPOINT_URL": srv.URL, "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
		"AWS_RESPONSE_CHECKSUM_VALIDATION": "when_required",
	}
	var out []string
	for k, v := range env {
		t.Setenv(k, v) // this process reads the bucket back
		out = append(out, k+"="+v)
	}
	return out
}

// bucketObjects returns every object under url by relative key.
func bucketObjects(t *testing.T, url string) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	b, err := datasets.OpenBucket(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	out := map[string][]byte{}
	it := b.List(nil)
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if out[obj.Key], err = b.ReadAll(ctx, obj.Key); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGenerateS3Kill9 kills `galaxygym generate --out s3://...` with
// SIGKILL at seeded random moments (mid-upload among them), resuming each
// time from what the bucket holds, then checks that the objects are the
// files of an uninterrupted local run, byte for byte.
func TestGenerateS3Kill9(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command in child processes")
	}
	env := s3Env(t)
	url := "s3://data/ds?use_path_style=true"
	common := []string{"generate", "--agent", "random", "--episodes", "360", "--episodes-per-part", "20",
		"--workers", "2", "--seed", "5", "--out"}
	refDir := t.TempDir()
	t0 := time.Now()
	if out, err := child(refDir, append(common, "ds")...).CombinedOutput(); err != nil {
		t.Fatalf("local run: %v\n%s", err, out)
	}
	full := time.Since(t0)
	want := tree(t, refDir+"/ds")

	args := append(common, url)
	rng := rand.New(rand.NewPCG(26, 1))
	kills := 0
	for i := range 5 {
		cmd := child(t.TempDir(), args...)
		cmd.Env = append(cmd.Env, env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := full/10 + time.Duration(rng.Int64N(int64(full/2)))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-time.After(delay):
			cmd.Process.Kill()
			<-done
			kills++
		case err := <-done:
			if err != nil {
				t.Fatalf("run %d ended with %v before its kill", i, err)
			}
		}
		// Whatever the kill left: every object under a part's name is a
		// whole file of the reference run.
		for key, data := range bucketObjects(t, url) {
			if strings.HasPrefix(key, datasets.StepsDir+"/") || strings.HasPrefix(key, datasets.EpisodesDir+"/") {
				if string(data) != string(want[key]) {
					t.Fatalf("after kill %d: %s is not the finished part (%d bytes, want %d)", i, key, len(data), len(want[key]))
				}
			}
		}
	}
	cmd := child(t.TempDir(), args...)
	cmd.Env = append(cmd.Env, env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("final run: %v\n%s", err, out)
	}
	t.Logf("%d of 5 runs killed (a local run takes %v)", kills, full)
	got := bucketObjects(t, url)
	// The manifest records --out: compare it apart.
	wm, gm := string(want[datasets.ManifestFile]), string(got[datasets.ManifestFile])
	delete(want, datasets.ManifestFile)
	delete(got, datasets.ManifestFile)
	sameFiles(t, "s3, killed and resumed", want, got)
	if strings.Replace(wm, "--out ds", "--out "+url, 1) != gm {
		t.Errorf("manifests differ beyond --out:\n%s\n%s", wm, gm)
	}
	if out, err := runCLI(t, "dataset", "verify", url); err != nil || !strings.Contains(out, "ok: 18 parts") {
		t.Errorf("dataset verify: %v %s", err, out)
	}
}

// TestGenerateShardsCLI runs the shards of a job as an Indexed Job does
// (JOB_COMPLETION_INDEX), merges them and compares with one run.
func TestGenerateShardsCLI(t *testing.T) {
	base := []string{"generate", "--agent", "random", "--episodes", "90", "--episodes-per-part", "10",
		"--workers", "1", "--seed", "3", "--out"}
	one, sharded := t.TempDir()+"/one", t.TempDir()+"/sharded"
	t.Cleanup(func() { // flags keep their values from one Execute to the next
		gen, _, _ := rootCmd.Find([]string{"generate"})
		gen.Flags().Set("shards", "0")
		gen.Flags().Set("shard", "0")
	})
	if _, err := runCLI(t, append(base, one)...); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		t.Setenv("JOB_COMPLETION_INDEX", string(rune('0'+i)))
		out, err := runCLI(t, append(base, sharded, "--shards", "3")...)
		if err != nil || !strings.Contains(out, "shard "+string(rune('0'+i))+" of 3") {
			t.Fatalf("shard %d: %v %s", i, err, out)
		}
	}
	if out, err := runCLI(t, "dataset", "merge", sharded); err != nil || !strings.Contains(out, "9 parts, 90 episodes") {
		t.Fatalf("merge: %v %s", err, out)
	}
	want, got := tree(t, one), tree(t, sharded)
	wm, gm := string(want[datasets.ManifestFile]), string(got[datasets.ManifestFile])
	delete(want, datasets.ManifestFile)
	delete(got, datasets.ManifestFile)
	sameFiles(t, "merged shards", want, got)
	if strings.Replace(wm, one, sharded, 1) != gm {
		t.Errorf("manifests differ beyond --out")
	}
	if _, err := runCLI(t, append(base, sharded, "--shards", "0", "--shard", "1")...); err == nil {
		t.Error("--shard without --shards accepted")
	}
}

// TestShardRace runs the same shard in two processes at once (a pod
// retried while the first still runs), into a directory and into S3:
// whatever each of them ends with, the parts left are whole, and the
// merge of the shards is the dataset of one run.
func TestShardRace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command in child processes")
	}
	env := s3Env(t)
	common := []string{"generate", "--agent", "random", "--episodes", "240", "--episodes-per-part", "20",
		"--workers", "2", "--seed", "9", "--shards", "2", "--out"}
	refDir := t.TempDir()
	one := append([]string{}, common[:len(common)-3]...)
	if out, err := child(refDir, append(one, "--out", "ds")...).CombinedOutput(); err != nil {
		t.Fatalf("one run: %v\n%s", err, out)
	}
	want := tree(t, refDir+"/ds")
	delete(want, datasets.ManifestFile)
	for _, out := range []string{"ds", "s3://data/race?use_path_style=true"} {
		dir := t.TempDir()
		run := func(shard string) *exec.Cmd {
			c := child(dir, append(common, out, "--shard", shard)...)
			c.Env = append(c.Env, env...)
			return c
		}
		a, b := run("0"), run("0")
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		if err := b.Start(); err != nil {
			t.Fatal(err)
		}
		ea, eb := a.Wait(), b.Wait()
		t.Logf("%s: racing shard 0 ended with %v and %v", out, ea, eb)
		for _, shard := range []string{"0", "1"} {
			if msg, err := run(shard).CombinedOutput(); err != nil {
				t.Fatalf("%s shard %s: %v\n%s", out, shard, err, msg)
			}
		}
		target := out
		if !datasets.IsURL(out) {
			target = dir + "/" + out
		}
		if msg, err := runCLI(t, "dataset", "merge", target); err != nil {
			t.Fatalf("%s merge: %v\n%s", out, err, msg)
		}
		var got map[string][]byte
		if datasets.IsURL(out) {
			got = bucketObjects(t, out)
		} else {
			got = tree(t, target)
		}
		delete(got, datasets.ManifestFile)
		sameFiles(t, out+": raced shards merged", want, got)
	}
}

// TestGenerateS3Refused checks the errors a retry cannot fix: exit code 2
// (deploy/k8s's podFailurePolicy fails the index on it), a clear message,
// nothing written.
func TestGenerateS3Refused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command in child processes")
	}
	env := s3Env(t)
	for _, c := range []struct {
		url, extra, want string
	}{
		{"s3://missing/x?use_path_style=true", "", "does not exist"},
		{"s3://data/x?use_path_style=true", "AWS_SECRET_ACCESS_KEY=", "credentials"},
	} {
		cmd := child(t.TempDir(), "generate", "--agent", "random", "--episodes", "10", "--out", c.url)
		cmd.Env = append(cmd.Env, env...)
		if c.extra != "" {
			cmd.Env = append(cmd.Env, c.extra, "AWS_ACCESS_KEY_ID=")
		}
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: %v, want exit code 2 and %q:\n%s", c.url, err, c.want, out)
		}
	}
	if got := bucketObjects(t, "s3://data?use_path_style=true"); len(got) != 0 {
		t.Errorf("refused runs wrote %d objects", len(got))
	}
}
