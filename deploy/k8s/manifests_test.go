// Package k8s holds the Kubernetes manifests of galaxygym (deploy/k8s/*.yaml)
// and their tests: every document is decoded strictly into the Kubernetes
// API types, so that a misspelt field fails `go test`.
package k8s

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// decodeStrict decodes one YAML document into v, refusing unknown fields.
func decodeStrict(doc []byte, v any) error {
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

type objects struct {
	jobs        map[string]*batchv1.Job
	deployments map[string]*appsv1.Deployment
	services    map[string]*corev1.Service
}

// load decodes every document of every deploy/k8s/*.yaml.
func load(t *testing.T) objects {
	t.Helper()
	files, _ := filepath.Glob("*.yaml")
	if len(files) == 0 {
		t.Fatal("no manifests")
	}
	o := objects{map[string]*batchv1.Job{}, map[string]*appsv1.Deployment{}, map[string]*corev1.Service{}}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
			var head struct{ APIVersion, Kind string }
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				t.Fatalf("%s document %d: %v", f, i, err)
			}
			var v any
			switch head.APIVersion + " " + head.Kind {
			case "batch/v1 Job":
				v = &batchv1.Job{}
			case "apps/v1 Deployment":
				v = &appsv1.Deployment{}
			case "v1 Service":
				v = &corev1.Service{}
			default:
				t.Fatalf("%s document %d: unexpected %s %s", f, i, head.APIVersion, head.Kind)
			}
			if err := decodeStrict([]byte(doc), v); err != nil {
				t.Fatalf("%s document %d (%s): %v", f, i, head.Kind, err)
			}
			switch x := v.(type) {
			case *batchv1.Job:
				o.jobs[x.Name] = x
			case *appsv1.Deployment:
				o.deployments[x.Name] = x
			case *corev1.Service:
				o.services[x.Name] = x
			}
		}
	}
	return o
}

func TestStrictDecodingCatchesTypos(t *testing.T) {
	doc := "apiVersion: batch/v1\nkind: Job\nspec:\n  backoffLimitPerIndx: 3\n"
	if err := decodeStrict([]byte(doc), &batchv1.Job{}); err == nil {
		t.Error("a misspelt field decoded")
	}
}

// checkPod checks what every pod of ours needs: non-root, no privilege
// escalation, resources requested, the image of the Dockerfile.
func checkPod(t *testing.T, name string, spec *corev1.PodSpec) {
	t.Helper()
	if sc := spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		t.Errorf("%s: not runAsNonRoot with a non-zero runAsUser", name)
	}
	for _, c := range spec.Containers {
		if c.Image != "galaxygym:latest" {
			t.Errorf("%s/%s: image %s, want galaxygym:latest (the Dockerfile's)", name, c.Name, c.Image)
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
			t.Errorf("%s/%s: cpu and memory requests and a memory limit are required", name, c.Name)
		}
		if sc := c.SecurityContext; sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("%s/%s: want allowPrivilegeEscalation false and a read-only root", name, c.Name)
		}
	}
}

// flag returns the value of --name=value in args.
func flag(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestManifests(t *testing.T) {
	o := load(t)
	gen := o.jobs["galaxygym-generate"]
	if gen == nil {
		t.Fatal("no galaxygym-generate Job")
	}
	s := gen.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Error("generate: not an Indexed Job")
	}
	if s.Completions == nil || s.Parallelism == nil || s.BackoffLimitPerIndex == nil || s.PodFailurePolicy == nil {
		t.Fatal("generate: completions, parallelism, backoffLimitPerIndex and podFailurePolicy are required")
	}
	// podFailurePolicy and backoffLimitPerIndex need restartPolicy Never
	// (the API server refuses them otherwise).
	if p := gen.Spec.Template.Spec.RestartPolicy; p != corev1.RestartPolicyNever {
		t.Errorf("generate: restartPolicy %q, want Never", p)
	}
	c := gen.Spec.Template.Spec.Containers[0]
	if c.Args[0] != "generate" {
		t.Errorf("generate: args %v", c.Args)
	}
	if shards, _ := flag(c.Args, "shards"); shards != itoa(*s.Completions) || *s.Parallelism != *s.Completions {
		t.Errorf("generate: --shards=%s but completions %d (parallelism %d)", shards, *s.Completions, *s.Parallelism)
	}
	if out, _ := flag(c.Args, "out"); out != "$(DATASET_URL)" {
		t.Errorf("generate: --out=%s, want $(DATASET_URL) from the Secret", out)
	}
	workers, _ := flag(c.Args, "workers")
	if cpu := c.Resources.Requests.Cpu(); workers == "" || cpu.String() != workers {
		t.Errorf("generate: --workers=%s but %s cpu requested", workers, cpu)
	}
	var failIndexOn2 bool
	for _, r := range s.PodFailurePolicy.Rules {
		if r.Action == batchv1.PodFailurePolicyActionFailIndex && r.OnExitCodes != nil && slices.Contains(r.OnExitCodes.Values, 2) &&
			r.OnExitCodes.ContainerName != nil && *r.OnExitCodes.ContainerName == c.Name {
			failIndexOn2 = true
		}
	}
	if !failIndexOn2 {
		t.Error("generate: podFailurePolicy does not fail the index on exit code 2 (configuration errors)")
	}
	secretURL := false
	for _, e := range c.Env {
		if e.Name == "DATASET_URL" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name == "galaxygym-bucket" {
			secretURL = true
		}
	}
	if !secretURL || len(c.EnvFrom) == 0 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != "galaxygym-bucket" {
		t.Error("generate: the bucket URL and credentials must come from the Secret galaxygym-bucket")
	}
	checkPod(t, "generate", &gen.Spec.Template.Spec)

	merge := o.jobs["galaxygym-merge"]
	if merge == nil {
		t.Fatal("no galaxygym-merge Job")
	}
	if a := merge.Spec.Template.Spec.Containers[0].Args; !slices.Equal(a, []string{"dataset", "merge", "$(DATASET_URL)"}) {
		t.Errorf("merge: args %v", a)
	}
	checkPod(t, "merge", &merge.Spec.Template.Spec)

	dep, svc := o.deployments["galaxygym-serve"], o.services["galaxygym-serve"]
	if dep == nil || svc == nil {
		t.Fatal("no galaxygym-serve Deployment and Service")
	}
	sc := dep.Spec.Template.Spec.Containers[0]
	if sc.Args[0] != "serve" || sc.ReadinessProbe == nil || sc.ReadinessProbe.HTTPGet == nil || sc.ReadinessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("serve: args %v, want serve with readiness on /healthz", sc.Args)
	}
	tok := false
	for _, e := range sc.Env {
		if e.Name == "GALAXYGYM_TOKEN" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			tok = true
		}
	}
	if !tok {
		t.Error("serve: GALAXYGYM_TOKEN must come from a Secret")
	}
	for k, v := range svc.Spec.Selector {
		if dep.Spec.Template.Labels[k] != v {
			t.Errorf("service selector %s=%s does not select the Deployment's pods", k, v)
		}
	}
	if dep.Spec.Selector == nil || dep.Spec.Selector.MatchLabels["app.kubernetes.io/component"] != "serve" {
		t.Error("serve: selector")
	}
	checkPod(t, "serve", &dep.Spec.Template.Spec)
}

func itoa(n int32) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestDockerfile checks that the image is the static binary on a
// distroless base, non-root, and that the build command it runs gives a
// statically linked executable (docker itself is not run here).
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(data)
	for _, want := range []string{"CGO_ENABLED=0 go build", "-tags gcs,azure", "./cmd/galaxygym", "FROM gcr.io/distroless/static", "USER 65532"} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "galaxygym")
	cmd := exec.Command("go", "build", "-trimpath", "-tags", "gcs,azure", "-o", bin, "./cmd/galaxygym") // as the Dockerfile
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary is dynamically linked (%v)", p.Type)
		}
	}
	if out, err := exec.Command(bin, "dataset", "merge", "--help").CombinedOutput(); err != nil || !strings.Contains(string(out), "job.json") {
		t.Errorf("the static binary does not run: %v %s", err, out)
	}
}
