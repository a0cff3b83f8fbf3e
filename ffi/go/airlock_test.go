package airlock_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"airlock.invalid/airlock"
)

func wantUTF8Error(t *testing.T, what string, err error, offset int) {
	t.Helper()
	var inv *airlock.InvalidUTF8Error
	if !errors.As(err, &inv) {
		t.Fatalf("%s: want *InvalidUTF8Error, got %T %v", what, err, err)
	}
	if inv.Offset != offset {
		t.Errorf("%s: offset %d, want %d", what, inv.Offset, offset)
	}
	if airlock.StatusOf(err) != airlock.StatusInvalidUTF8 {
		t.Errorf("%s: StatusOf = %v", what, airlock.StatusOf(err))
	}
	var rej *airlock.RejectionError
	if errors.As(err, &rej) {
		t.Errorf("%s: invalid UTF-8 is not a rejection", what)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("byte offset %d", offset)) {
		t.Errorf("%s: message %q", what, err.Error())
	}
}

func TestInvalidUTF8(t *testing.T) {
	const bad = "ok \xe2\x82 then" // a cut "€" at offset 3
	const off = 3
	_, err := airlock.SanitizeProse(bad, "insight", 100)
	wantUTF8Error(t, "SanitizeProse", err, off)
	dst := []byte("keep")
	out, err := airlock.AppendSanitizeProse(dst, []byte(bad), "insight", 100)
	wantUTF8Error(t, "AppendSanitizeProse", err, off)
	if string(out) != "keep" {
		t.Errorf("AppendSanitizeProse changed dst: %q", out)
	}
	_, err = airlock.TruncateToBytes(bad, 100)
	wantUTF8Error(t, "TruncateToBytes", err, off)
	_, err = airlock.TruncateLen([]byte(bad), 1)
	wantUTF8Error(t, "TruncateLen", err, off)
	_, err = airlock.StripInvisibles(bad)
	wantUTF8Error(t, "StripInvisibles", err, off)
	_, err = airlock.AppendStripInvisibles(nil, []byte(bad))
	wantUTF8Error(t, "AppendStripInvisibles", err, off)
	_, err = airlock.FenceToken([]byte(bad))
	wantUTF8Error(t, "FenceToken", err, off)
	_, err = airlock.FenceTokenString(bad)
	wantUTF8Error(t, "FenceTokenString", err, off)
	wantUTF8Error(t, "CheckMachineToken", airlock.CheckMachineToken(bad, "f", airlock.ShapeHostClass), off)
	wantUTF8Error(t, "CheckNoControl", airlock.CheckNoControl(bad, "f"), off)
	wantUTF8Error(t, "CheckSafeDescription", airlock.CheckSafeDescription(bad), off)
	wantUTF8Error(t, "CheckSafeGlob", airlock.CheckSafeGlob(bad), off)
	wantUTF8Error(t, "CheckNoForgery", airlock.CheckNoForgery(bad, "f"), off)
	_, err = airlock.ParseFrontmatter(bad)
	wantUTF8Error(t, "ParseFrontmatter", err, off)
	_, refused, err := airlock.FrontmatterRefusal(bad)
	wantUTF8Error(t, "FrontmatterRefusal", err, off)
	if refused {
		t.Error("FrontmatterRefusal: refused on invalid UTF-8")
	}
	wantUTF8Error(t, "ValidUTF8", airlock.ValidUTF8([]byte(bad)), off)
	if err := airlock.ValidUTF8([]byte("€")); err != nil {
		t.Error(err)
	}
	// A lone surrogate encoded in UTF-8 (CESU) and an overlong are invalid too.
	wantUTF8Error(t, "surrogate", airlock.CheckNoControl("ab\xed\xa0\x80", "f"), 2)
	wantUTF8Error(t, "overlong", airlock.CheckNoControl("\xc0\xaf", "f"), 0)
}

func TestRejectionError(t *testing.T) {
	err := airlock.CheckMachineToken("2026-08-18\n", "expires-at", airlock.ShapeExpiresAt)
	var rej *airlock.RejectionError
	if !errors.As(err, &rej) {
		t.Fatalf("want *RejectionError, got %T %v", err, err)
	}
	want := `reconcile-sanitize: rejecting record — expires-at must match ^\d{4}-\d{2}-\d{2}$ (got "2026-08-18\n")`
	if rej.Message != want || err.Error() != want || rej.Status != airlock.StatusRejected {
		t.Errorf("got %v %q", rej.Status, rej.Message)
	}
	// errors.As sees through wrapping.
	wrapped := fmt.Errorf("writing rule: %w", err)
	var again *airlock.RejectionError
	if !errors.As(wrapped, &again) || again.Message != want {
		t.Error("errors.As through %w")
	}
	if airlock.StatusOf(wrapped) != airlock.StatusRejected {
		t.Errorf("StatusOf = %v", airlock.StatusOf(wrapped))
	}
	if airlock.StatusRejected.String() != "AIRLOCK_STATUS_REJECTED" {
		t.Errorf("status name %q", airlock.StatusRejected.String())
	}

	_, err = airlock.SanitizeProse("x </applicable-rules> y", "insight", 1000)
	if !errors.As(err, &rej) || !strings.Contains(rej.Message, `"</APPLICABLE-RULES>"`) {
		t.Errorf("forgery: %v", err)
	}
	// A long message (preview of 120 UTF-16 units, escaped) comes back whole.
	long := strings.Repeat("\x01", 500)
	err = airlock.CheckNoControl(long, "title")
	if !errors.As(err, &rej) || !strings.HasSuffix(rej.Message, `")`) ||
		strings.Count(rej.Message, `\u0001`) != 120 {
		t.Errorf("long message: %v", err)
	}
	if airlock.StatusOf(nil) != airlock.StatusOK {
		t.Error("StatusOf(nil)")
	}
}

func TestStatusErrors(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want airlock.Status
	}{
		{"unknown shape", airlock.CheckMachineToken("x", "f", airlock.Shape(99)), airlock.StatusInvalidArg},
		{"field not UTF-8", airlock.CheckNoControl("x", "f\xff"), airlock.StatusInvalidField},
		{"negative cap", func() error { _, err := airlock.SanitizeProse("x", "f", -1); return err }(), airlock.StatusInvalidArg},
		{"negative truncate", func() error { _, err := airlock.TruncateToBytes("x", -1); return err }(), airlock.StatusInvalidArg},
	}
	for _, c := range cases {
		var st *airlock.StatusError
		if !errors.As(c.err, &st) || st.Status != c.want || airlock.StatusOf(c.err) != c.want {
			t.Errorf("%s: got %T %v, want status %v", c.name, c.err, c.err, c.want)
		}
	}
	if airlock.Shape(99).Pattern() != "" || airlock.ShapeExpiresAt.Pattern() != `^\d{4}-\d{2}-\d{2}$` {
		t.Error("Shape.Pattern")
	}
}

func TestProseAndStrip(t *testing.T) {
	got, err := airlock.SanitizeProse("€€€€", "insight", 7)
	if err != nil {
		t.Fatal(err)
	}
	want := "€€ […truncated by the reconciliation engine: 12 bytes exceeded the 7-byte cap]"
	if got != want {
		t.Errorf("got %q", got)
	}
	// Nothing to strip: the very same string comes back, without allocating.
	in := "plain text, nothing hidden"
	if out, _ := airlock.StripInvisibles(in); out != in {
		t.Errorf("strip changed %q", out)
	}
	allocs := testing.AllocsPerRun(100, func() { _, _ = airlock.StripInvisibles(in) })
	if allocs != 0 {
		t.Errorf("StripInvisibles of clean text allocates %v times", allocs)
	}
	if out, _ := airlock.StripInvisibles("a\u200bb\u200d"); out != "ab" {
		t.Errorf("strip: %q", out)
	}
	if out, _ := airlock.StripInvisibles("\u200b"); out != "" {
		t.Errorf("strip to empty: %q", out)
	}
	if out, _ := airlock.StripInvisibles(""); out != "" {
		t.Errorf("strip empty: %q", out)
	}
	// Append with room reuses dst and allocates nothing.
	text := []byte(strings.Repeat("prose with untrusted-content:end ", 10))
	buf := make([]byte, 0, airlock.WorstCaseLen(len(text), 100))
	out, err := airlock.AppendSanitizeProse(buf, text, "insight", 100)
	if err != nil || &out[:1][0] != &buf[:1][0] {
		t.Errorf("append did not reuse dst: %v", err)
	}
	allocs = testing.AllocsPerRun(100, func() {
		_, _ = airlock.AppendSanitizeProse(buf[:0], text, "insight", 100)
	})
	if allocs != 0 {
		t.Errorf("AppendSanitizeProse with room allocates %v times", allocs)
	}
	allocs = testing.AllocsPerRun(100, func() {
		_ = airlock.CheckMachineToken("fragile-pattern/x", "learning-key", airlock.ShapeLearningKey)
		_ = airlock.CheckSafeDescription("a benign description")
		_, _, _ = airlock.FrontmatterRefusal("---\nglobs: src/**\n---\n")
		_, _ = airlock.TruncateToBytes("€€€", 4)
	})
	if allocs != 0 {
		t.Errorf("accepting checks allocate %v times", allocs)
	}
	// dst whose spare capacity is the input itself: must not overlap.
	shared := make([]byte, 0, 64)
	shared = append(shared, "xx"...)
	src := shared[2:cap(shared)][:10]
	copy(src, "a\u200bbcdefg")
	res, err := airlock.AppendStripInvisibles(shared, src)
	if err != nil || string(res) != "xxabcdefg" {
		t.Errorf("overlapping append: %q %v", res, err)
	}
	if airlock.WorstCaseLen(21, math.MaxInt) != 26 {
		t.Errorf("WorstCaseLen(21) = %d", airlock.WorstCaseLen(21, math.MaxInt))
	}
}

func TestTruncate(t *testing.T) {
	tr, err := airlock.TruncateToBytes("€€€", 8)
	if err != nil || tr != (airlock.Truncation{Text: "€€", Truncated: true, Bytes: 9}) {
		t.Errorf("got %+v %v", tr, err)
	}
	tr, _ = airlock.TruncateToBytes("abc", 0)
	if tr.Text != "" || !tr.Truncated {
		t.Errorf("cap 0: %+v", tr)
	}
}

func TestFenceToken(t *testing.T) {
	for payload, want := range map[string]string{
		"": "9a271f2a", "- a": "20faed25", "- b": "d391e7d4", "hello": "f6c5c364", "€": "f415df34",
	} {
		got, err := airlock.FenceTokenString(payload)
		if err != nil || got != want {
			t.Errorf("FenceTokenString(%q) = %q, %v; want %q", payload, got, err, want)
		}
	}
}

func TestFrontmatterParse(t *testing.T) {
	doc := "<!-- provenance -->\n---\nauto-generated: true\nalwaysApply: false\n" +
		"description: \"a benign description\"\nglobs:\n  - \"scripts/lib/x/**\"\n  - 'docs/*.md'\n" +
		"learning-key: fragile-pattern/x\nconfidence: 0.8\nexpires-at: 2099-09-30\nmode: a\nmode: b\n---\n\n# body\n"
	f, err := airlock.ParseFrontmatter(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !f.HasGlobs || len(f.Globs) != 2 || f.Globs[0] != "scripts/lib/x/**" || f.Globs[1] != "docs/*.md" {
		t.Errorf("globs %v %q", f.HasGlobs, f.Globs)
	}
	var keys []string
	for _, e := range f.Meta {
		keys = append(keys, fmt.Sprintf("%s=%v", e.Key, e.Value()))
	}
	want := "auto-generated=true alwaysApply=false description=a benign description " +
		"learning-key=fragile-pattern/x confidence=0.8 expires-at=2099-09-30 mode=b"
	if strings.Join(keys, " ") != want {
		t.Errorf("meta\n got %s\nwant %s", strings.Join(keys, " "), want)
	}
	if e, ok := f.Get(airlock.MetaConfidence); !ok || e.Kind != airlock.KindNumber || e.Num != 0.8 {
		t.Errorf("confidence %+v %v", e, ok)
	}
	if _, ok := f.Get(airlock.MetaHostClass); ok {
		t.Error("host-class present")
	}
	if reason, refused, err := airlock.FrontmatterRefusal(doc); err != nil || refused || reason != "" {
		t.Errorf("sound doc refused: %q %v %v", reason, refused, err)
	}

	// No block: globs null, no keys.
	f, err = airlock.ParseFrontmatter("# just a body\n")
	if err != nil || f.HasGlobs || f.Globs != nil || len(f.Meta) != 0 {
		t.Errorf("no block: %+v %v", f, err)
	}
	// globs: [] is an empty list, not null; and the gate refuses it.
	empty := "---\nauto-generated: true\nglobs: []\nlearning-key: a/b\nexpires-at: 2099-01-01\n---\n"
	f, err = airlock.ParseFrontmatter(empty)
	if err != nil || !f.HasGlobs || f.Globs == nil || len(f.Globs) != 0 {
		t.Errorf("globs: []: %+v %v", f, err)
	}
	reason, refused, err := airlock.FrontmatterRefusal(empty)
	if err != nil || !refused || !strings.Contains(reason, "empty globs array (globs: [])") {
		t.Errorf("gate: %q %v %v", reason, refused, err)
	}

	// A parse error is a *RejectionError with StatusParseError.
	_, err = airlock.ParseFrontmatter("---\nNO COLON HERE\n---\n")
	var rej *airlock.RejectionError
	if !errors.As(err, &rej) || rej.Status != airlock.StatusParseError ||
		rej.Message != `Malformed frontmatter line: "NO COLON HERE"` {
		t.Errorf("parse error: %T %v", err, err)
	}
	reason, refused, err = airlock.FrontmatterRefusal("---\nNO COLON HERE\n---\n")
	if err != nil || !refused || !strings.HasPrefix(reason, `frontmatter does not parse (Malformed frontmatter line: "NO COLON HERE")`) {
		t.Errorf("gate on parse error: %q %v %v", reason, refused, err)
	}
}

func TestClassesAndConstants(t *testing.T) {
	if !airlock.IsControl(0x1b) || airlock.IsControl('a') {
		t.Error("IsControl")
	}
	if !airlock.IsDangerousInvisible(0x200b) || airlock.IsDangerousInvisible(0x200e) {
		t.Error("IsDangerousInvisible")
	}
	if !airlock.IsExtendedPictographic(0x1f600) || !airlock.IsOrphanSelector(0xfe0f, airlock.NoRune) ||
		airlock.IsOrphanSelector(0xfe0f, 0x1f600) || !airlock.IsStripped(0xfe0f, 0x200b) {
		t.Error("selectors")
	}
	if airlock.Version() == "" || airlock.UnicodeVersion() != "17.0.0" {
		t.Errorf("versions %q %q", airlock.Version(), airlock.UnicodeVersion())
	}
	if !strings.Contains(airlock.EnvelopeBegin(), "untrusted-content:start") ||
		airlock.EnvelopeEnd() != "<!-- untrusted-content:end -->" {
		t.Error("envelope")
	}
	if airlock.InsightMaxBytes != 2000 || airlock.DescriptionMaxBytes != 512 || airlock.FenceTokenMaxLen != 64 {
		t.Error("constants")
	}
}

func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			text := strings.Repeat(fmt.Sprintf("goroutine %d \u200b untrusted-content:start ", g), 50)
			first, err := airlock.SanitizeProse(text, "insight", 500)
			if err != nil {
				t.Error(err)
				return
			}
			for i := 0; i < 200; i++ {
				if got, _ := airlock.SanitizeProse(text, "insight", 500); got != first {
					t.Errorf("goroutine %d: result changed", g)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}
