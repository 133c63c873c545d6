package templatecheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
)

// Dashboard is a CloudWatch dashboard body (the JSON of an AWS::CloudWatch::Dashboard's
// DashboardBody), as far as the checks and the picture read it.
type Dashboard struct {
	Widgets []Widget `json:"widgets"`
}

// Widget is one widget of a dashboard, on its grid of 24 columns.
type Widget struct {
	Type       string           `json:"type"` // metric, alarm, text, ...
	X          int              `json:"x"`
	Y          int              `json:"y"`
	Width      int              `json:"width"`
	Height     int              `json:"height"`
	Properties WidgetProperties `json:"properties"`
}

// WidgetProperties are the properties of a metric or alarm widget.
type WidgetProperties struct {
	Title   string   `json:"title"`
	Region  string   `json:"region"`
	Stat    string   `json:"stat"`
	Period  int      `json:"period"`
	Metrics [][]any  `json:"metrics"`
	Alarms  []string `json:"alarms"`
}

// ParseDashboard reads a dashboard body; fields it does not know are ignored.
func ParseDashboard(body string) (Dashboard, error) {
	var d Dashboard
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		return Dashboard{}, fmt.Errorf("dashboard body: %w", err)
	}
	return d, nil
}

// MetricRef is one metric that a widget or an alarm charts: a metric with its
// dimensions, or a SEARCH over a namespace and dimension keys.
type MetricRef struct {
	Namespace, Name string
	// Dimensions of a metric ({} for one without dimensions); nil for a search.
	Dimensions map[string]string
	// SearchKeys are the dimension keys of a SEARCH's schema; nil for a metric.
	SearchKeys []string
	Stat       string // Sum, p99, ...
	Label      string
}

// Search reports whether r is a SEARCH expression.
func (r MetricRef) Search() bool { return r.Dimensions == nil }

// search matches the SEARCH expressions the dashboard uses:
// SEARCH('{Namespace,Key...} MetricName="Name"', 'Stat', Period).
var search = regexp.MustCompile(`^SEARCH\('\{([^}]+)\}\s+MetricName="([^"]+)"',\s*'([^']+)',\s*\d+\)$`)

// Metrics reads the widget's metrics: arrays written in full (namespace, name, then
// dimension name and value pairs, then an optional options object) and SEARCH
// expressions. The "." shorthand (same as the line above) and other expressions are
// refused, so that every metric can be checked as written.
func (w Widget) Metrics() ([]MetricRef, error) {
	var out []MetricRef
	for i, line := range w.Properties.Metrics {
		r, err := metricLine(line, w.Properties.Stat)
		if err != nil {
			return nil, fmt.Errorf("widget %q, metric %d: %w", w.Properties.Title, i, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func metricLine(line []any, stat string) (MetricRef, error) {
	var words []string
	opts := map[string]any{}
	for i, v := range line {
		switch v := v.(type) {
		case string:
			words = append(words, v)
		case map[string]any:
			if i != len(line)-1 {
				return MetricRef{}, errors.New("an options object must come last")
			}
			opts = v
		default:
			return MetricRef{}, fmt.Errorf("%v is neither a string nor an options object", v)
		}
	}
	if s, ok := opts["stat"].(string); ok {
		stat = s
	}
	label, _ := opts["label"].(string)
	if expr, ok := opts["expression"].(string); ok {
		if len(words) > 0 {
			return MetricRef{}, errors.New("an expression line holds only its options object")
		}
		return parseSearch(expr, label)
	}
	if len(words) < 2 || len(words)%2 != 0 || words[0] == "." || words[1] == "." {
		return MetricRef{}, fmt.Errorf("%v: want namespace, name, then dimension name and value pairs, written in full", words)
	}
	r := MetricRef{Namespace: words[0], Name: words[1], Dimensions: map[string]string{}, Stat: stat, Label: label}
	for i := 2; i < len(words); i += 2 {
		if words[i] == "." || words[i+1] == "." {
			return MetricRef{}, fmt.Errorf("%v: write every dimension in full, not \".\"", words)
		}
		r.Dimensions[words[i]] = words[i+1]
	}
	return r, nil
}

// parseSearch reads a SEARCH expression into its namespace, keys, metric name and stat.
func parseSearch(expr, label string) (MetricRef, error) {
	m := search.FindStringSubmatch(expr)
	if m == nil {
		return MetricRef{}, fmt.Errorf("expression %q: only SEARCH('{Namespace,Key} MetricName=\"Name\"', 'Stat', Period) is checked here", expr)
	}
	schema := strings.Split(m[1], ",")
	for i := range schema {
		schema[i] = strings.Trim(strings.TrimSpace(schema[i]), `"`)
	}
	return MetricRef{Namespace: schema[0], Name: m[2], SearchKeys: slices.Clone(schema[1:]), Stat: m[3], Label: label}, nil
}

// The picture's scale: pixels per grid column and per grid row.
const (
	svgColumn, svgRow, svgMargin = 40, 24, 8
)

// DashboardSVG draws the dashboard's grid: each widget where CloudWatch places it, with
// its title and what it charts (alarms named without the stack's prefix).
func DashboardSVG(d Dashboard, stackPrefix, title string) (string, error) {
	rows := 0
	for _, w := range d.Widgets {
		rows = max(rows, w.Y+w.Height)
	}
	width, height := 24*svgColumn+2*svgMargin, rows*svgRow+2*svgMargin+24
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold" font-size="13">%s</text>`+"\n", svgMargin, svgMargin+12, html.EscapeString(title))
	for _, w := range d.Widgets {
		lines, err := widgetLines(w, stackPrefix)
		if err != nil {
			return "", err
		}
		x, y := svgMargin+w.X*svgColumn, svgMargin+24+w.Y*svgRow
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="3" fill="#f7f9fb" stroke="#8a99a8"/>`+"\n", x+2, y+2, w.Width*svgColumn-4, w.Height*svgRow-4)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", x+10, y+18, html.EscapeString(w.Properties.Title))
		maxChars := (w.Width*svgColumn - 20) * 10 / 56 // about 5.6 px a character
		for i, l := range lines {
			if 36+i*14 > w.Height*svgRow-6 {
				break
			}
			if len(l) > maxChars {
				l = l[:maxChars-1] + "…"
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#333">%s</text>`+"\n", x+10, y+34+i*14, html.EscapeString(l))
		}
	}
	b.WriteString("</svg>\n")
	return b.String(), nil
}

// widgetLines describes what a widget shows, one line per metric or alarm.
func widgetLines(w Widget, stackPrefix string) ([]string, error) {
	if w.Type == "alarm" {
		var out []string
		line := ""
		for _, arn := range w.Properties.Alarms {
			name := strings.TrimPrefix(arn[strings.LastIndex(arn, ":")+1:], stackPrefix)
			if line != "" && len(line)+len(name)+3 > (w.Width*svgColumn-20)/6 {
				out, line = append(out, line), ""
			}
			if line != "" {
				line += " · "
			}
			line += name
		}
		return append(out, line), nil
	}
	refs, err := w.Metrics()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range refs {
		switch {
		case r.Search():
			out = append(out, fmt.Sprintf("%s %s by %s (%s)", r.Namespace, r.Name, strings.Join(r.SearchKeys, ", "), r.Stat))
		case r.Label != "":
			out = append(out, fmt.Sprintf("%s: %s %s (%s)", r.Label, r.Namespace, r.Name, r.Stat))
		default:
			out = append(out, fmt.Sprintf("%s %s (%s)", r.Namespace, r.Name, r.Stat))
		}
	}
	return out, nil
}
