package templatecheck

import (
	"fmt"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// The monitoring resources of template.yaml that the tests pin.
const (
	dashboardResource = "Dashboard"
	alarmTopicParam   = "AlarmTopicArn"
	alarmLatencyParam = "AlarmStoreLatencyMs"
	topicCondition    = "HasAlarmTopic"
	sampleTopic       = "arn:aws:sns:us-east-1:123456789012:edgelimit-alarms"
)

// scenarios are the deployments the monitoring is checked for: each backend, with and
// without an alarm topic.
var scenarios = []struct {
	name   string
	params map[string]string
}{
	{"dynamodb", map[string]string{"Backend": "dynamodb"}},
	{"dynamodb with topic", map[string]string{"Backend": "dynamodb", alarmTopicParam: sampleTopic}},
	{"upstash", map[string]string{"Backend": "upstash", "UpstashRestUrl": "https://db.upstash.io",
		"UpstashTokenSecretArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:tok-AbCdEf"}},
}

func stackFor(params map[string]string) Stack {
	return Stack{Name: "edgelimit-test", Region: "us-east-1", Account: "123456789012", Parameters: params}
}

// monitoring is one scenario's evaluated dashboard and alarms, and how to check a
// metric against the authorizer's emission and the stack's resources.
type monitoring struct {
	t         *testing.T
	tmpl      map[string]any
	stack     Stack
	emission  emission
	dashboard Dashboard
	alarms    map[string]map[string]any // logical id -> evaluated properties
}

func newMonitoring(t *testing.T, params map[string]string, e emission) *monitoring {
	t.Helper()
	tmpl := load(t)
	m := &monitoring{t: t, tmpl: tmpl, stack: stackFor(params), emission: e, alarms: map[string]map[string]any{}}
	body, err := m.stack.Evaluate(tmpl, mustResource(t, tmpl, dashboardResource, "AWS::CloudWatch::Dashboard").Properties["DashboardBody"])
	if err != nil {
		t.Fatalf("evaluating the DashboardBody: %v", err)
	}
	if m.dashboard, err = ParseDashboard(asString(body)); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	for _, a := range resources(t, tmpl, "AWS::CloudWatch::Alarm") {
		if a.Condition != "" {
			if holds, err := m.stack.Evaluate(tmpl, map[string]any{"Condition": a.Condition}); err != nil || holds != true {
				continue
			}
		}
		props, err := m.stack.Evaluate(tmpl, a.Properties)
		if err != nil {
			t.Fatalf("evaluating %s: %v", a.ID, err)
		}
		m.alarms[a.ID] = asMap(props)
	}
	return m
}

// resourceOf returns the logical id that a Ref's stand-in name stands for, when it is
// a resource of one of the types.
func (m *monitoring) resourceOf(name string, types ...string) (string, bool) {
	id, ok := strings.CutPrefix(name, m.stack.Name+"-")
	r := asMap(dig(m.tmpl, "Resources", id))
	return id, ok && r != nil && slices.Contains(types, asString(r["Type"]))
}

var (
	lambdaMetrics = []string{"Errors", "Throttles", "Invocations", "Duration", "ConcurrentExecutions"}
	percentile    = regexp.MustCompile(`^p\d{1,2}(\.\d+)?$`)
)

// check lists what is wrong with one charted or alarmed metric: an edgelimit metric the
// authorizer does not emit (name, namespace or dimensions), a statistic that does not
// fit its unit, a Lambda or DynamoDB metric of something this stack does not have.
func (m *monitoring) check(r MetricRef) []string {
	var errs []string
	keys := r.SearchKeys
	if !r.Search() {
		keys = slices.Collect(maps.Keys(r.Dimensions))
	}
	switch r.Namespace {
	case m.emission.namespace:
		unit, ok := m.emission.units[r.Name]
		switch {
		case !ok:
			errs = append(errs, fmt.Sprintf("%s is not a metric the authorizer emits (%v)", r.Name, slices.Sorted(maps.Keys(m.emission.units))))
		case !m.emission.hasDimensions(keys):
			errs = append(errs, fmt.Sprintf("dimensions %v: the authorizer emits %v", keys, m.emission.dimensionSets))
		case unit == "Count" && r.Stat != "Sum":
			errs = append(errs, fmt.Sprintf("%s counts decisions: chart its Sum, not %q", r.Name, r.Stat))
		case unit != "Count" && !percentile.MatchString(r.Stat) && !slices.Contains([]string{"Average", "Maximum", "Minimum"}, r.Stat):
			errs = append(errs, fmt.Sprintf("%s is in %s: a percentile, Average, Minimum or Maximum, not %q", r.Name, unit, r.Stat))
		}
	case "AWS/Lambda":
		if !slices.Contains(lambdaMetrics, r.Name) {
			errs = append(errs, r.Name+" is not a Lambda function metric")
		}
		if fn := r.Dimensions["FunctionName"]; r.Search() || len(r.Dimensions) != 1 {
			errs = append(errs, fmt.Sprintf("dimensions %v: want FunctionName alone", r.Dimensions))
		} else if _, ok := m.resourceOf(fn, "AWS::Serverless::Function", "AWS::Lambda::Function"); !ok {
			errs = append(errs, fn+" is not a function of this stack")
		}
	case "AWS/DynamoDB":
		errs = append(errs, m.checkDynamoDB(r)...)
	default:
		errs = append(errs, "namespace "+r.Namespace+" is neither the authorizer's nor AWS/Lambda's or AWS/DynamoDB's")
	}
	if !percentile.MatchString(r.Stat) && !slices.Contains([]string{"Sum", "Average", "Maximum", "Minimum", "SampleCount"}, r.Stat) {
		errs = append(errs, fmt.Sprintf("statistic %q", r.Stat))
	}
	return errs
}

// checkAll checks the metrics that where charts, and marks their chartKeys in seen.
func (m *monitoring) checkAll(where string, refs []MetricRef, seen map[string]bool) {
	m.t.Helper()
	for _, r := range refs {
		for _, err := range m.check(r) {
			m.t.Errorf("%s: %s %s: %s", where, r.Namespace, r.Name, err)
		}
		for _, k := range chartKeys(r) {
			seen[k] = true
		}
	}
}

// checkDynamoDB checks a ThrottledRequests metric: a table of this stack, and an
// operation that a function's IAM statements grant on that table.
func (m *monitoring) checkDynamoDB(r MetricRef) []string {
	if r.Name != "ThrottledRequests" || r.Search() || len(r.Dimensions) != 2 {
		return []string{fmt.Sprintf("%s %v: want ThrottledRequests by TableName and Operation", r.Name, r.Dimensions)}
	}
	table, ok := m.resourceOf(r.Dimensions["TableName"], "AWS::DynamoDB::Table")
	if !ok {
		return []string{r.Dimensions["TableName"] + " is not a table of this stack"}
	}
	if op, granted := r.Dimensions["Operation"], grantedActions(m.t, m.tmpl, table); !slices.Contains(granted, "dynamodb:"+op) {
		return []string{fmt.Sprintf("no function of this stack may call %s on %s (%v)", op, table, granted)}
	}
	return nil
}

// grantedActions lists the actions the template's IAM statements grant on the table.
func grantedActions(t testing.TB, tmpl map[string]any, table string) []string {
	var out []string
	for _, r := range resources(t, tmpl, "") {
		for _, st := range statements(r.Properties) {
			for _, res := range alternatives(st["Resource"]) {
				if id, attr, ok := getAttOf(res); ok && id == table && attr == "Arn" {
					out = append(out, asStrings(st["Action"])...)
				}
			}
		}
	}
	return out
}

// The dashboard charts only metrics that exist: every edgelimit metric is one the
// authorizer emits, under a dimension set it emits, and every Lambda or DynamoDB
// metric names a function or table of this stack. It charts each emitted metric in
// total and per tenant, store latency's p50 and p99, the authorizer's errors and
// throttles, DynamoDB's throttled requests, and every alarm; its widgets fit the grid.
// The epoch change (gate.EpochChangedMetric) is the store's, charted in total only.
func TestDashboardChartsEmittedMetrics(t *testing.T) {
	e := emitted(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			m := newMonitoring(t, sc.params, e)
			charted := map[string]bool{}
			for _, w := range m.dashboard.Widgets {
				if w.Type != "metric" {
					continue
				}
				if w.Properties.Region != m.stack.Region {
					t.Errorf("widget %q: region %q, want the stack's", w.Properties.Title, w.Properties.Region)
				}
				refs, err := w.Metrics()
				if err != nil {
					t.Error(err)
				}
				m.checkAll("widget "+strconv.Quote(w.Properties.Title), refs, charted)
			}
			fn := authorizers[sc.params["Backend"]]
			want := []string{"AWS/Lambda Errors " + fn, "AWS/Lambda Throttles " + fn,
				e.namespace + " StoreLatency total p50", e.namespace + " StoreLatency total p99"}
			for name := range e.units {
				want = append(want, e.namespace+" "+name+" total")
				if name != gate.EpochChangedMetric { // a store's, not a tenant's: no TenantId
					want = append(want, e.namespace+" "+name+" by TenantId")
				}
			}
			if sc.params["Backend"] == "dynamodb" {
				want = append(want, "AWS/DynamoDB ThrottledRequests CountersTable")
			}
			for _, w := range want {
				if !charted[w] {
					t.Errorf("the dashboard does not chart %s (it charts %v)", w, slices.Sorted(maps.Keys(charted)))
				}
			}
			checkGrid(t, m.dashboard)
			checkAlarmWidget(t, m)
		})
	}
}

// chartKeys name what a metric reference charts, for the coverage checks: "NS Name
// by Key" for a search, "NS Name Resource" for a function's or table's metric, "NS
// Name total" (and "NS Name total pNN" for a percentile) for a metric without
// dimensions.
func chartKeys(r MetricRef) []string {
	name := r.Namespace + " " + r.Name
	switch {
	case r.Search():
		return []string{name + " by " + strings.Join(r.SearchKeys, ",")}
	case r.Namespace == "AWS/Lambda":
		return []string{name + " " + strings.TrimPrefix(r.Dimensions["FunctionName"], stackFor(nil).Name+"-")}
	case r.Namespace == "AWS/DynamoDB":
		return []string{name + " " + strings.TrimPrefix(r.Dimensions["TableName"], stackFor(nil).Name+"-")}
	case len(r.Dimensions) == 0 && percentile.MatchString(r.Stat):
		return []string{name + " total", name + " total " + r.Stat}
	}
	return []string{name + " total"}
}

// checkGrid checks that the widgets lie within the 24 columns without overlapping.
func checkGrid(t *testing.T, d Dashboard) {
	t.Helper()
	cells := map[[2]int]string{}
	for _, w := range d.Widgets {
		if w.Width < 1 || w.Height < 1 || w.X < 0 || w.Y < 0 || w.X+w.Width > 24 {
			t.Errorf("widget %q at x %d y %d, %dx%d: outside the 24-column grid", w.Properties.Title, w.X, w.Y, w.Width, w.Height)
		}
		for x := w.X; x < w.X+w.Width; x++ {
			for y := w.Y; y < w.Y+w.Height; y++ {
				if other, ok := cells[[2]int{x, y}]; ok {
					t.Fatalf("widgets %q and %q overlap at x %d y %d", other, w.Properties.Title, x, y)
				}
				cells[[2]int{x, y}] = w.Properties.Title
			}
		}
	}
}

// checkAlarmWidget checks that the dashboard shows exactly the stack's alarms.
func checkAlarmWidget(t *testing.T, m *monitoring) {
	t.Helper()
	var shown []string
	for _, w := range m.dashboard.Widgets {
		if w.Type == "alarm" {
			shown = append(shown, w.Properties.Alarms...)
		}
	}
	var want []string
	for id := range m.alarms {
		want = append(want, m.stack.ResourceARN(id))
	}
	if slices.Sort(shown); !slices.Equal(shown, slices.Sorted(slices.Values(want))) {
		t.Errorf("the dashboard shows alarms %v, want the stack's %v", shown, slices.Sorted(slices.Values(want)))
	}
}

// Every alarm refers to a metric that exists (checked as the dashboard's are), is
// named after the stack, notifies the topic exactly when one is given, and says what it
// compares; together they cover fail-mode answers, store latency above its threshold,
// a tenant store that lost its data (its epoch marker changed),
// the authorizer's errors and throttles, and DynamoDB's throttled requests.
func TestAlarmsReferToEmittedMetrics(t *testing.T) {
	e := emitted(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			m := newMonitoring(t, sc.params, e)
			covered := map[string]bool{}
			for _, id := range slices.Sorted(maps.Keys(m.alarms)) {
				props := m.alarms[id]
				refs, err := alarmMetrics(props)
				if err != nil {
					t.Errorf("%s: %v", id, err)
				}
				m.checkAll(id, refs, covered)
				checkAlarm(t, m, id, props)
			}
			fn := authorizers[sc.params["Backend"]]
			want := []string{e.namespace + " FailOpen total", e.namespace + " FailClosed total", e.namespace + " StoreLatency total p99",
				e.namespace + " " + gate.EpochChangedMetric + " total",
				"AWS/Lambda Errors " + fn, "AWS/Lambda Throttles " + fn}
			if sc.params["Backend"] == "dynamodb" {
				want = append(want, "AWS/DynamoDB ThrottledRequests CountersTable", "AWS/DynamoDB ThrottledRequests TenantsTable")
			}
			for _, w := range want {
				if !covered[w] {
					t.Errorf("no alarm on %s (alarms cover %v)", w, slices.Sorted(maps.Keys(covered)))
				}
			}
		})
	}
}

var (
	comparisons = []string{"GreaterThanThreshold", "GreaterThanOrEqualToThreshold", "LessThanThreshold", "LessThanOrEqualToThreshold"}
	missingData = []string{"breaching", "notBreaching", "ignore", "missing"}
)

// checkAlarm checks an alarm's name, actions, comparison and periods.
func checkAlarm(t *testing.T, m *monitoring, id string, props map[string]any) {
	t.Helper()
	if name := asString(props["AlarmName"]); !strings.HasPrefix(name, m.stack.Name+"-") {
		t.Errorf("%s: AlarmName %q is not derived from the stack name", id, name)
	}
	var want []any
	if topic := m.stack.Parameters[alarmTopicParam]; topic != "" {
		want = []any{topic}
	}
	for _, k := range []string{"AlarmActions", "OKActions"} {
		if got := asList(props[k]); !slices.Equal(got, want) {
			t.Errorf("%s: %s = %v, want %v", id, k, got, want)
		}
	}
	if !slices.Contains(comparisons, asString(props["ComparisonOperator"])) || !slices.Contains(missingData, asString(props["TreatMissingData"])) {
		t.Errorf("%s: ComparisonOperator %v, TreatMissingData %v", id, props["ComparisonOperator"], props["TreatMissingData"])
	}
	if _, err := strconv.ParseFloat(fmt.Sprint(props["Threshold"]), 64); err != nil {
		t.Errorf("%s: Threshold %v is not a number", id, props["Threshold"])
	}
	periods, _ := props["EvaluationPeriods"].(int)
	points, ok := props["DatapointsToAlarm"].(int)
	if periods < 1 || ok && (points < 1 || points > periods) {
		t.Errorf("%s: EvaluationPeriods %v, DatapointsToAlarm %v", id, props["EvaluationPeriods"], props["DatapointsToAlarm"])
	}
	if _, single := props["MetricName"]; single == (props["Metrics"] != nil) {
		t.Errorf("%s: give MetricName or Metrics, one of them", id)
	}
	if _, ok := props["Period"].(int); props["MetricName"] != nil && !ok {
		t.Errorf("%s: Period %v", id, props["Period"])
	}
}

// alarmMetrics reads an alarm's metrics: its single metric, or the MetricStat queries
// of its Metrics, of which exactly one (an expression over them) returns data.
func alarmMetrics(props map[string]any) ([]MetricRef, error) {
	if props["MetricName"] != nil {
		stat := asString(props["Statistic"])
		if ext := asString(props["ExtendedStatistic"]); ext != "" {
			stat = ext
		}
		return []MetricRef{{Namespace: asString(props["Namespace"]), Name: asString(props["MetricName"]),
			Dimensions: dimensions(props["Dimensions"]), Stat: stat}}, nil
	}
	var refs []MetricRef
	ids, returning := map[string]bool{}, 0
	var expressions []string
	for _, q := range asList(props["Metrics"]) {
		q := asMap(q)
		ids[asString(q["Id"])] = true
		if q["ReturnData"] != false {
			returning++
		}
		if expr := asString(q["Expression"]); expr != "" {
			expressions = append(expressions, expr)
			continue
		}
		metric := asMap(dig(q, "MetricStat", "Metric"))
		if _, ok := dig(q, "MetricStat", "Period").(int); !ok || metric == nil {
			return nil, fmt.Errorf("query %v: want a MetricStat with a Metric and a Period, or an Expression", q["Id"])
		}
		refs = append(refs, MetricRef{Namespace: asString(metric["Namespace"]), Name: asString(metric["MetricName"]),
			Dimensions: dimensions(metric["Dimensions"]), Stat: asString(dig(q, "MetricStat", "Stat"))})
	}
	if returning != 1 || len(expressions) != 1 {
		return nil, fmt.Errorf("%d queries return data and %d are expressions: want one expression, returning data", returning, len(expressions))
	}
	for _, word := range regexp.MustCompile(`[a-z][a-zA-Z0-9_]*`).FindAllString(expressions[0], -1) {
		if !ids[word] {
			return nil, fmt.Errorf("expression %q refers to %q, which is not a query id", expressions[0], word)
		}
	}
	return refs, nil
}

// dimensions reads [{Name, Value}] into a map ({} when there are none).
func dimensions(v any) map[string]string {
	out := map[string]string{}
	for _, d := range asList(v) {
		out[asString(asMap(d)["Name"])] = asString(asMap(d)["Value"])
	}
	return out
}

// The latency alarm's default threshold is the default latency budget: past the budget
// the fail mode answers, so a p99 above it means fail-mode answers.
func TestLatencyAlarmDefaultIsTheBudget(t *testing.T) {
	params := asMap(load(t)["Parameters"])
	budget, err := time.ParseDuration(asString(dig(params, "LatencyBudget", "Default")))
	if err != nil {
		t.Fatal(err)
	}
	if got := dig(params, alarmLatencyParam, "Default"); got != int(budget.Milliseconds()) {
		t.Errorf("%s Default = %v, want LatencyBudget's default in ms (%d)", alarmLatencyParam, got, budget.Milliseconds())
	}
	if p := asMap(params[alarmTopicParam]); p["Default"] != "" {
		t.Errorf("%s Default = %v, want \"\" (no topic)", alarmTopicParam, p["Default"])
	}
	if c := dig(load(t), "Conditions", topicCondition); c == nil {
		t.Errorf("no condition %s", topicCondition)
	}
	name := asString(dig(mustResource(t, load(t), dashboardResource, "AWS::CloudWatch::Dashboard").Properties, "DashboardName", "Fn::Sub"))
	if !strings.HasPrefix(name, "${AWS::StackName}-") {
		t.Errorf("DashboardName %q is not derived from the stack name", name)
	}
}

// docs/reference.md explains every alarm, by the name it has after the stack's prefix.
func TestAlarmsAreExplained(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(t), "docs/reference.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Dashboard and alarms\n")
	if !ok {
		t.Fatal(`docs/reference.md has no "## Dashboard and alarms" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, a := range resources(t, load(t), "AWS::CloudWatch::Alarm") {
		name, ok := strings.CutPrefix(asString(dig(a.Properties, "AlarmName", "Fn::Sub")), "${AWS::StackName}-")
		if !ok {
			t.Errorf("%s: AlarmName is not !Sub ${AWS::StackName}-NAME", a.ID)
			continue
		}
		if !strings.Contains(section, "| `"+name+"` |") {
			t.Errorf("the README's alarm table has no row for `%s` (%s)", name, a.ID)
		}
	}
}
