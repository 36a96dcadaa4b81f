package datasets

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestBucketReadBackPython reads a dataset written to the S3 server back
// with pyarrow, polars and DuckDB (when its httpfs extension is
// installed), as a trainer would, straight from the bucket.
// It runs with the Python of $GALAXYGYM_PYTHON (e.g. the project's venv)
// and is skipped when that is unset or lacks pyarrow.
func TestBucketReadBackPython(t *testing.T) {
	py := os.Getenv("GALAXYGYM_PYTHON")
	if py == "" {
		t.Skip("set GALAXYGYM_PYTHON to a Python with pyarrow (and polars) to run")
	}
	if err := exec.Command(py, "-c", "import pyarrow.fs").Run(); err != nil {
		t.Skipf("%s has no pyarrow: %v", py, err)
	}
	smallGroups(t)
	f := newFakeS3(t, "data")
	res := generate(t, bucketConfig(s3URL))
	rows := res.Manifest.TotalSteps + res.Manifest.TotalEpisodes
	script := `
import json, os, sys
import pyarrow.dataset as ds, pyarrow.fs as pafs
s3 = pafs.S3FileSystem(endpoint_override=os.environ["AWS_ENDPOINT_URL"], scheme="http",
                       access_key=os.environ["AWS_ACCESS_KEY_ID"], secret_key=os.environ["AWS_SECRET_ACCESS_KEY"],
                       region="us-east-1")
with s3.open_input_stream("data/runs/express/manifest.json") as fh:
    m = json.loads(fh.read())
t = ds.dataset("data/runs/express/steps", filesystem=s3, format="parquet").to_table(columns=["episode_id", "obs"])
assert t.num_rows == m["total_steps"] + m["total_episodes"], (t.num_rows, m["total_steps"])
print("pyarrow", t.num_rows)
try:
    import duckdb
except ImportError:
    duckdb = None
if duckdb is not None:
    con = duckdb.connect()
    try:
        con.sql("LOAD httpfs")  # not installed offline: skipped then
    except duckdb.IOException as e:
        print("duckdb skipped:", str(e).splitlines()[0])
    else:
        ep = os.environ["AWS_ENDPOINT_URL"].removeprefix("http://")
        con.sql(f"CREATE SECRET (TYPE s3, KEY_ID '{os.environ['AWS_ACCESS_KEY_ID']}', SECRET '{os.environ['AWS_SECRET_ACCESS_KEY']}', "
                f"ENDPOINT '{ep}', URL_STYLE 'path', USE_SSL false, REGION 'us-east-1')")
        n = con.sql("SELECT count(*) FROM read_parquet('s3://data/runs/express/steps/*.parquet')").fetchone()[0]
        assert n == t.num_rows, n
        print("duckdb", n)
try:
    import polars as pl
except ImportError:
    sys.exit(0)
opts = {"aws_endpoint_url": os.environ["AWS_ENDPOINT_URL"], "aws_allow_http": "true", "aws_region": "us-east-1",
        "aws_access_key_id": os.environ["AWS_ACCESS_KEY_ID"], "aws_secret_access_key": os.environ["AWS_SECRET_ACCESS_KEY"]}
n = pl.scan_parquet("s3://data/runs/express/steps/*.parquet", storage_options=opts).select(pl.len()).collect().item()
assert n == t.num_rows, n
print("polars", n)
`
	cmd := exec.Command(py, "-c", script)
	cmd.Env = os.Environ()
	for k, v := range f.Env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "pyarrow "+strconv.FormatInt(rows, 10)) {
		t.Errorf("python read %s, want %d rows", out, rows)
	}
	t.Logf("%s", out)
}
