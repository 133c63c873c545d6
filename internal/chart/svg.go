package chart

import (
	"fmt"
	"strings"
)

var colors = []string{"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"}

const (
	width, height = 640, 360
	left, right   = 50, 170 // margins; the legend sits on the right
	top, bottom   = 20, 40
)

// SVG draws the series as step lines: admitted requests (y) over seconds (x).
func SVG(series []Series, title string) string {
	maxX, maxY := 1.0, 1.0
	for _, s := range series {
		for _, p := range s.Points {
			maxX, maxY = max(maxX, p[0]), max(maxY, p[1])
		}
	}
	x := func(v float64) float64 { return left + v/maxX*(width-left-right) }
	y := func(v float64) float64 { return height - bottom - v/maxY*(height-top-bottom) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="14" font-weight="bold">%s</text>`+"\n", left, title)
	axes(&b, maxX, maxY, x, y)
	for i, s := range series {
		var pts []string
		prev := 0.0
		for _, p := range s.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(p[0]), y(prev), x(p[0]), y(p[1])))
			prev = p[1]
		}
		c := colors[i%len(colors)]
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", c, strings.Join(pts, " "))
		ly := top + 20 + i*18
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>`, width-right+10, ly, width-right+30, ly, c)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s (%d)</text>`+"\n", width-right+36, ly+4, s.Name, int(prev))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func axes(b *strings.Builder, maxX, maxY float64, x, y func(float64) float64) {
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x(0), y(0), x(maxX), y(0))
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x(0), y(0), x(0), y(maxY))
	for s := 0.0; s <= maxX; s++ {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%gs</text>`+"\n", x(s), y(0)+16, s)
	}
	for n := 0.0; n <= maxY; n += 5 {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%g</text>`+"\n", x(0)-6, y(n)+4, n)
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">admitted (cumulative) over time</text>`+"\n", x(maxX/2), y(0)+32)
}
