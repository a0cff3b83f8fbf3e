package airlock_test

import (
	"strings"
	"testing"

	"airlock.invalid/airlock"
)

// prose2KiB is 2 KiB of typical learning text: mostly ASCII, some multi-byte text,
// one envelope marker and a zero-width space.
var prose2KiB = func() string {
	unit := "a green gate is not evidence — CI is the source of truth… untrusted-content:end \u200b"
	s := strings.Repeat(unit, 2048/len(unit)+1)
	tr, _ := airlock.TruncateToBytes(s, 2048)
	return tr.Text
}()

func BenchmarkSanitizeProse2KiB(b *testing.B) {
	b.SetBytes(int64(len(prose2KiB)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := airlock.SanitizeProse(prose2KiB, "insight", airlock.InsightMaxBytes); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendSanitizeProse2KiB(b *testing.B) {
	text := []byte(prose2KiB)
	buf := make([]byte, 0, airlock.WorstCaseLen(len(text), airlock.InsightMaxBytes))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := airlock.AppendSanitizeProse(buf[:0], text, "insight", airlock.InsightMaxBytes); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStripInvisibles2KiB(b *testing.B) {
	b.SetBytes(int64(len(prose2KiB)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := airlock.StripInvisibles(prose2KiB); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTruncateToBytes2KiB(b *testing.B) {
	b.SetBytes(int64(len(prose2KiB)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := airlock.TruncateToBytes(prose2KiB, 1000); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFenceToken2KiB(b *testing.B) {
	b.SetBytes(int64(len(prose2KiB)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := airlock.FenceTokenString(prose2KiB); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckMachineToken(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := airlock.CheckMachineToken("fragile-pattern/x", "learning-key", airlock.ShapeLearningKey); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckSafeDescription(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := airlock.CheckSafeDescription("a benign one-line description of the rule"); err != nil {
			b.Fatal(err)
		}
	}
}

const ruleDoc = "---\nauto-generated: true\nalwaysApply: false\ndescription: a benign description\n" +
	"globs:\n  - \"scripts/lib/x/**\"\nlearning-key: fragile-pattern/x\nconfidence: 0.8\n" +
	"expires-at: 2099-09-30\n---\n\n# Auto-generated rule: x\n"

func BenchmarkFrontmatterRefusal(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, refused, err := airlock.FrontmatterRefusal(ruleDoc); err != nil || refused {
			b.Fatal(err, refused)
		}
	}
}

func BenchmarkParseFrontmatter(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := airlock.ParseFrontmatter(ruleDoc); err != nil {
			b.Fatal(err)
		}
	}
}
