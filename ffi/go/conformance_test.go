package airlock_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"airlock.invalid/airlock"
)

// Every vectors file every layer runs (see tests/conformance/README.md).
var vectorFiles = []string{
	"../../tests/conformance/reference-vectors.jsonl",
	"../../tests/conformance/gate-3.21-vectors.jsonl",
	"../../tests/conformance/edge-vectors.jsonl",
}

type vector struct {
	line   string // file:line
	gate   string // the writer gate's release, or "" for the default
	fn     string
	args   []json.RawMessage
	ok     json.RawMessage // nil when the vector throws
	throws string
}

func loadVectors(t *testing.T) []vector {
	t.Helper()
	var out []vector
	for _, path := range vectorFiles {
		out = append(out, loadVectorFile(t, path)...)
	}
	return out
}

func loadVectorFile(t *testing.T, path string) []vector {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := path[strings.LastIndexByte(path, '/')+1:]
	var out []vector
	// One object a line, split on '\n' only (U+2028 and CR are data).
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("%s:%d: %v", name, i+1, err)
		}
		v := vector{line: fmt.Sprintf("%s:%d", name, i+1)}
		mustDecode(t, raw["fn"], &v.fn)
		if g, ok := raw["gate"]; ok {
			mustDecode(t, g, &v.gate)
		}
		mustDecode(t, raw["args"], &v.args)
		ok, hasOK := raw["ok"]
		th, hasThrows := raw["throws"]
		switch {
		case hasOK && !hasThrows:
			v.ok = ok
			if v.ok == nil {
				v.ok = json.RawMessage("null")
			}
		case hasThrows && !hasOK:
			mustDecode(t, th, &v.throws)
		default:
			t.Fatalf("line %s: neither ok nor throws", v.line)
		}
		out = append(out, v)
	}
	return out
}

func mustDecode(t *testing.T, raw json.RawMessage, into any) {
	t.Helper()
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
}

func (v vector) str(t *testing.T, i int) string {
	var s string
	mustDecode(t, v.args[i], &s)
	return s
}

// expectRejection checks err against a throwing vector (or no error for an ok one).
func expectErr(t *testing.T, v vector, err error, status airlock.Status) {
	t.Helper()
	if v.ok != nil {
		if err != nil {
			t.Errorf("line %s %s: unexpected error %v", v.line, v.fn, err)
		}
		return
	}
	var rej *airlock.RejectionError
	if !errors.As(err, &rej) {
		t.Errorf("line %s %s: want rejection %q, got %v", v.line, v.fn, v.throws, err)
		return
	}
	if rej.Status != status || rej.Message != v.throws || err.Error() != v.throws {
		t.Errorf("line %s %s: rejection\n got %v %q\nwant %v %q", v.line, v.fn, rej.Status,
			rej.Message, status, v.throws)
	}
}

func expectString(t *testing.T, v vector, got string) {
	t.Helper()
	var want string
	mustDecode(t, v.ok, &want)
	if got != want {
		t.Errorf("line %s %s:\n got %q\nwant %q", v.line, v.fn, got, want)
	}
}

var shapes = map[string]airlock.Shape{
	"HOST_CLASS_RE":       airlock.ShapeHostClass,
	"LEARNING_KEY_RE":     airlock.ShapeLearningKey,
	"EXPIRES_AT_RE":       airlock.ShapeExpiresAt,
	"PROVENANCE_TOKEN_RE": airlock.ShapeProvenance,
}

// frontmatterJSON renders a parse result as the reference's {globs, meta}, meta
// keys in order, for comparison with the vector's JSON.
func frontmatterJSON(f *airlock.Frontmatter) string {
	var b strings.Builder
	b.WriteString(`{"globs":`)
	if f.HasGlobs {
		g, _ := json.Marshal(f.Globs)
		b.Write(g)
	} else {
		b.WriteString("null")
	}
	b.WriteString(`,"meta":{`)
	for i, e := range f.Meta {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.Key.String())
		v := e.Value()
		if e.Kind == airlock.KindNumber && e.Num == 0 {
			v = 0.0 // JSON.stringify writes -0 as 0
		}
		val, err := json.Marshal(v)
		if err != nil {
			val = []byte(fmt.Sprint(e.Value()))
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteString("}}")
	return b.String()
}

// canonical re-encodes JSON keeping object key order (json.Compact does).
func canonical(t *testing.T, raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	// Re-encode strings the way json.Marshal does, so escapes compare equal.
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	var out strings.Builder
	writeValue(t, dec, &out)
	return out.String()
}

func writeValue(t *testing.T, dec *json.Decoder, out *strings.Builder) {
	tok, err := dec.Token()
	if err != nil {
		t.Fatal(err)
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '{':
			out.WriteByte('{')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out.WriteByte(',')
				}
				writeValue(t, dec, out) // key
				out.WriteByte(':')
				writeValue(t, dec, out)
			}
			dec.Token()
			out.WriteByte('}')
		case '[':
			out.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out.WriteByte(',')
				}
				writeValue(t, dec, out)
			}
			dec.Token()
			out.WriteByte(']')
		}
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(f)
		out.Write(b)
	case nil:
		out.WriteString("null")
	default:
		b, _ := json.Marshal(x)
		out.Write(b)
	}
}

func TestConformanceVectors(t *testing.T) {
	vectors := loadVectors(t)
	if len(vectors) < 1000 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	counts := map[string]int{}
	for _, v := range vectors {
		counts[v.fn]++
		switch v.fn {
		case "sanitizeProse":
			var opts struct {
				Field    string `json:"field"`
				MaxBytes int    `json:"maxBytes"`
			}
			mustDecode(t, v.args[1], &opts)
			text := v.str(t, 0)
			got, err := airlock.SanitizeProse(text, opts.Field, opts.MaxBytes)
			expectErr(t, v, err, airlock.StatusRejected)
			prefix := []byte("prefix:")
			app, aerr := airlock.AppendSanitizeProse(prefix, []byte(text), opts.Field, opts.MaxBytes)
			expectErr(t, v, aerr, airlock.StatusRejected)
			if v.ok != nil {
				expectString(t, v, got)
				if !bytes.HasPrefix(app, prefix) {
					t.Errorf("line %s: append lost the prefix", v.line)
				} else {
					expectString(t, v, string(app[len(prefix):]))
				}
			} else if string(app) != string(prefix) {
				t.Errorf("line %s: append changed dst on error", v.line)
			}
		case "truncateToBytes":
			text := v.str(t, 0)
			var max int
			mustDecode(t, v.args[1], &max)
			got, err := airlock.TruncateToBytes(text, max)
			if err != nil {
				t.Errorf("line %s: %v", v.line, err)
				continue
			}
			var want struct {
				Text      string `json:"text"`
				Truncated bool   `json:"truncated"`
				Bytes     int    `json:"bytes"`
			}
			mustDecode(t, v.ok, &want)
			if got.Text != want.Text || got.Truncated != want.Truncated || got.Bytes != want.Bytes {
				t.Errorf("line %s: got %+v want %+v", v.line, got, want)
			}
			if n, err := airlock.TruncateLen([]byte(text), max); err != nil || n != len(want.Text) {
				t.Errorf("line %s: TruncateLen = %d, %v", v.line, n, err)
			}
		case "stripDangerousInvisibles":
			text := v.str(t, 0)
			got, err := airlock.StripInvisibles(text)
			if err != nil {
				t.Errorf("line %s: %v", v.line, err)
				continue
			}
			expectString(t, v, got)
			app, err := airlock.AppendStripInvisibles([]byte("p"), []byte(text))
			if err != nil || len(app) == 0 || app[0] != 'p' {
				t.Errorf("line %s: append %q, %v", v.line, app, err)
				continue
			}
			expectString(t, v, string(app[1:]))
		case "assertNoControlChars":
			value := v.str(t, 0)
			expectErr(t, v, airlock.CheckNoControl(value, v.str(t, 1)), airlock.StatusRejected)
			if v.ok != nil {
				expectString(t, v, value)
			}
		case "assertSafeDescription":
			value := v.str(t, 0)
			expectErr(t, v, airlock.CheckSafeDescription(value), airlock.StatusRejected)
			if v.ok != nil {
				expectString(t, v, value)
			}
		case "assertSafeGlob":
			value := v.str(t, 0)
			expectErr(t, v, airlock.CheckSafeGlob(value), airlock.StatusRejected)
			if v.ok != nil {
				expectString(t, v, value)
			}
		case "assertNoWrapperForgery":
			expectErr(t, v, airlock.CheckNoForgery(v.str(t, 0), v.str(t, 1)), airlock.StatusRejected)
			if v.ok != nil && string(v.ok) != "null" {
				t.Errorf("line %s: ok is %s, not null", v.line, v.ok)
			}
		case "assertMachineToken":
			var opts struct {
				Field   string `json:"field"`
				Pattern string `json:"pattern"`
			}
			mustDecode(t, v.args[1], &opts)
			shape, known := shapes[opts.Pattern]
			if !known {
				t.Fatalf("line %s: unknown pattern %q", v.line, opts.Pattern)
			}
			value := v.str(t, 0)
			expectErr(t, v, airlock.CheckMachineToken(value, opts.Field, shape), airlock.StatusRejected)
			if v.ok != nil {
				expectString(t, v, value)
			}
		case "deriveFenceToken":
			payload := v.str(t, 0)
			got, err := airlock.FenceTokenString(payload)
			if err != nil {
				t.Errorf("line %s: %v", v.line, err)
				continue
			}
			expectString(t, v, got)
			got2, err := airlock.FenceToken([]byte(payload))
			if err != nil || got2 != got {
				t.Errorf("line %s: FenceToken([]byte) = %q, %v", v.line, got2, err)
			}
		case "parseGlobsFrontmatter":
			f, err := airlock.ParseFrontmatter(v.str(t, 0))
			expectErr(t, v, err, airlock.StatusParseError)
			if v.ok != nil && err == nil {
				got, want := frontmatterJSON(f), canonical(t, v.ok)
				if got != want {
					t.Errorf("line %s: parse\n got %s\nwant %s", v.line, got, want)
				}
				if f.HasGlobs != (f.Globs != nil) {
					t.Errorf("line %s: HasGlobs %v with Globs %#v", v.line, f.HasGlobs, f.Globs)
				}
			}
		case "frontmatterRefusalReason":
			var reason string
			var refused bool
			var err error
			switch v.gate {
			case "":
				reason, refused, err = airlock.FrontmatterRefusal(v.str(t, 0))
			case "3.21":
				reason, refused, err = airlock.FrontmatterRefusalGate(v.str(t, 0), airlock.Gate321)
			default:
				t.Fatalf("%s: unknown gate %q", v.line, v.gate)
			}
			if err != nil {
				t.Errorf("line %s: %v", v.line, err)
				continue
			}
			var want *string
			mustDecode(t, v.ok, &want)
			if (want != nil) != refused || (want != nil && *want != reason) || (want == nil && reason != "") {
				t.Errorf("line %s: refusal got (%q, %v) want %v", v.line, reason, refused, v.ok)
			}
		default:
			t.Errorf("line %s: unknown fn %q", v.line, v.fn)
		}
	}
	want := []string{"sanitizeProse", "truncateToBytes", "stripDangerousInvisibles",
		"assertNoControlChars", "assertSafeDescription", "assertSafeGlob",
		"assertNoWrapperForgery", "assertMachineToken", "deriveFenceToken",
		"parseGlobsFrontmatter", "frontmatterRefusalReason"}
	for _, fn := range want {
		if counts[fn] == 0 {
			t.Errorf("no vectors for %s", fn)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("functions seen: %v", reflect.ValueOf(counts).MapKeys())
	}
	t.Logf("%d vectors: %v", len(vectors), counts)
}
