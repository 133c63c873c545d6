package chart

import (
	"fmt"
	"html"
	"math"
	"strings"
	"time"
)

var colors = []string{"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"}

const (
	offeredColor  = "#999999"
	width         = 720
	left, right   = 60, 20 // margins around the plot
	top, plotH    = 36, 280
	legendTop     = top + plotH + 52 // below the x axis and its label
	legendRowH    = 18
	tickSeconds   = 0.5
	countsPerTick = 5
)

// plot maps seconds and counts to the picture's coordinates.
type plot struct{ maxX, maxY float64 }

func (p plot) x(v float64) float64 { return left + v/p.maxX*(width-left-right) }
func (p plot) y(v float64) float64 { return top + plotH - v/p.maxY*plotH }

// newPlot fits every series, with room above the highest. The offered requests, many
// more, leave the plot at its top (clipped).
func newPlot(c Chart) plot {
	p := plot{maxX: 1, maxY: 1}
	for _, s := range c.Series {
		for _, pt := range s.Points {
			p.maxX, p.maxY = max(p.maxX, pt[0]), max(p.maxY, pt[1])
		}
	}
	for _, pt := range c.Offered {
		p.maxX = max(p.maxX, pt[0])
	}
	p.maxX = math.Ceil(p.maxX/tickSeconds) * tickSeconds
	p.maxY = (math.Floor(p.maxY/countsPerTick) + 1) * countsPerTick
	return p
}

// SVG draws the chart as step lines: requests so far (y) over seconds since the
// chart's origin (x), the offered requests in grey, and a legend naming each rule.
func SVG(c Chart, title string) string {
	p := newPlot(c)
	height := legendTop + (len(c.Series)+1)*legendRowH + 4
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="%d" y="16" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	fmt.Fprintf(&b, `<clipPath id="plot"><rect x="%d" y="%d" width="%d" height="%d"/></clipPath>`+"\n", left, top, width-left-right, plotH)
	axes(&b, p, time.Unix(int64(c.Origin), 0).UTC())
	burst(&b, p, c.Offered)
	steps(&b, p, c.Offered, offeredColor, `stroke-dasharray="4 3" clip-path="url(#plot)"`)
	legend(&b, 0, offeredColor, "offered: every request of the trace", "offered", len(c.Offered))
	for i, s := range c.Series {
		color := colors[i%len(colors)]
		steps(&b, p, s.Points, color, "")
		label := s.Name + " " + s.Rule
		if s.Released {
			label += " at t + delay_ms"
		}
		legend(&b, i+1, color, label, "admitted", len(s.Points))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// steps draws points as a step line from (0, 0) to the right end of the plot.
func steps(b *strings.Builder, p plot, points [][2]float64, color, extra string) {
	pts := []string{fmt.Sprintf("%.1f,%.1f", p.x(0), p.y(0))}
	prev := 0.0
	for _, pt := range points {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", p.x(pt[0]), p.y(prev), p.x(pt[0]), p.y(pt[1])))
		prev = pt[1]
	}
	pts = append(pts, fmt.Sprintf("%.1f,%.1f", p.x(p.maxX), p.y(prev)))
	if extra != "" {
		extra = " " + extra
	}
	fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", color, extra, strings.Join(pts, " "))
}

func legend(b *strings.Builder, row int, color, label, what string, total int) {
	y := legendTop + row*legendRowH
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>`, left, y, left+20, y, color)
	fmt.Fprintf(b, `<text x="%d" y="%d">%s (%s %d)</text>`+"\n", left+26, y+4, html.EscapeString(label), what, total)
}

// axes draws both axes, their ticks and their labels.
func axes(b *strings.Builder, p plot, origin time.Time) {
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", p.x(0), p.y(0), p.x(p.maxX), p.y(0))
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", p.x(0), p.y(0), p.x(0), p.y(p.maxY))
	for i := 0; float64(i)*tickSeconds <= p.maxX; i++ {
		s := float64(i) * tickSeconds
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n", p.x(s), p.y(0)+16, s)
	}
	for n := 0.0; n <= p.maxY; n += countsPerTick {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%g</text>`+"\n", p.x(0)-6, p.y(n)+4, n)
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">time (seconds since %s)</text>`+"\n",
		p.x(p.maxX/2), p.y(0)+34, origin.Format(time.RFC3339))
	cx, cy := float64(left-40), p.y(p.maxY/2)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" transform="rotate(-90 %.1f %.1f)">requests (cumulative)</text>`+"\n", cx, cy, cx, cy)
}

// burst marks the instant with the most simultaneous arrivals, when there are several.
func burst(b *strings.Builder, p plot, offered [][2]float64) {
	at, n := 0.0, 0
	for i := 0; i < len(offered); { // offered[i:j], arrivals at one instant (offered counts them one by one)
		j := i
		for j < len(offered) && offered[j][0] == offered[i][0] {
			j++
		}
		if j-i > n {
			at, n = offered[i][0], j-i
		}
		i = j
	}
	if n < 2 {
		return
	}
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="2 2"/>`+"\n", p.x(at), p.y(0), p.x(at), p.y(p.maxY), offeredColor)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f">burst: %d requests at %g s</text>`+"\n", p.x(at)+4, p.y(p.maxY)-3, n, at)
}
