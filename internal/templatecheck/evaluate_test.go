package templatecheck

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Stack is what CloudFormation knows when it evaluates a template for one deployment:
// the stack's name, region and account, and the parameter values given (a parameter
// not given takes its Default).
type Stack struct {
	Name, Region, Account string
	Parameters            map[string]string
}

// ResourceName is what Evaluate gives for a Ref to the resource id: a stand-in for the
// physical name CloudFormation would generate, from which the id can be read back.
func (st Stack) ResourceName(id string) string { return st.Name + "-" + id }

// ResourceARN is what Evaluate gives for Fn::GetAtt [id, Arn].
func (st Stack) ResourceARN(id string) string {
	return "arn:aws:test:" + st.Region + ":" + st.Account + ":" + st.ResourceName(id)
}

// Evaluate resolves the intrinsic functions in v as CloudFormation would for the stack:
// Ref (parameters, pseudo parameters, resources; a CommaDelimitedList is a list),
// Fn::GetAtt, Fn::Sub, Fn::Join, Fn::If and the condition functions. A value that
// evaluates to AWS::NoValue is dropped from its map or list, and Evaluate returns
// NoValue for it at the top. A reference to a resource
// whose Condition is false, an unknown name, or another function is an error.
func (st Stack) Evaluate(tmpl map[string]any, v any) (any, error) {
	e := &evaluator{st: st, tmpl: tmpl, conditions: map[string]bool{}}
	return e.eval(v)
}

// NoValue is the value of AWS::NoValue.
var NoValue = noValue{}

type noValue struct{}

type evaluator struct {
	st         Stack
	tmpl       map[string]any
	conditions map[string]bool // evaluated conditions
}

func (e *evaluator) eval(v any) (any, error) {
	if fn, arg, ok := intrinsic(v); ok {
		return e.call(fn, arg)
	}
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			r, err := e.eval(x)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			if r != NoValue {
				out[k] = r
			}
		}
		return out, nil
	case []any:
		out := make([]any, 0, len(v))
		for _, x := range v {
			r, err := e.eval(x)
			if err != nil {
				return nil, err
			}
			if r != NoValue {
				out = append(out, r)
			}
		}
		return out, nil
	}
	return v, nil
}

func (e *evaluator) call(fn string, arg any) (any, error) {
	switch fn {
	case "Ref":
		return e.ref(asString(arg))
	case "Fn::GetAtt":
		parts := asStrings(arg)
		if len(parts) != 2 {
			return nil, fmt.Errorf("Fn::GetAtt %v: want [Resource, Attribute]", arg)
		}
		return e.getAtt(parts[0], parts[1])
	case "Fn::Sub":
		return e.sub(arg)
	case "Fn::If":
		args := asList(arg)
		if len(args) != 3 {
			return nil, fmt.Errorf("Fn::If %v: want [Condition, then, else]", arg)
		}
		holds, err := e.condition(asString(args[0]))
		if err != nil {
			return nil, err
		}
		if holds {
			return e.eval(args[1])
		}
		return e.eval(args[2])
	case "Fn::Join":
		return e.join(arg)
	case "Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or", "Condition":
		return e.boolean(map[string]any{fn: arg})
	}
	return nil, fmt.Errorf("%s is not evaluated here", fn)
}

var pseudo = map[string]func(Stack) string{
	"AWS::StackName": func(st Stack) string { return st.Name },
	"AWS::Region":    func(st Stack) string { return st.Region },
	"AWS::AccountId": func(st Stack) string { return st.Account },
	"AWS::Partition": func(Stack) string { return "aws" },
	"AWS::URLSuffix": func(Stack) string { return "amazonaws.com" },
	"AWS::StackId": func(st Stack) string {
		return "arn:aws:cloudformation:" + st.Region + ":" + st.Account + ":stack/" + st.Name + "/id"
	},
}

func (e *evaluator) ref(name string) (any, error) {
	if name == "AWS::NoValue" {
		return NoValue, nil
	}
	if f, ok := pseudo[name]; ok {
		return f(e.st), nil
	}
	if p := asMap(dig(e.tmpl, "Parameters", name)); p != nil {
		if v, ok := e.st.Parameters[name]; ok {
			return parameterValue(p, v), nil
		}
		if d := p["Default"]; d != nil {
			return parameterValue(p, fmt.Sprint(d)), nil
		}
		return nil, fmt.Errorf("parameter %s has no value and no Default", name)
	}
	if err := e.exists(name); err != nil {
		return nil, err
	}
	return e.st.ResourceName(name), nil
}

// parameterValue is the value of a parameter given as text: a list for a
// CommaDelimitedList, the text itself otherwise.
func parameterValue(p map[string]any, text string) any {
	if p["Type"] != "CommaDelimitedList" {
		return text
	}
	var out []any
	for _, s := range strings.Split(text, ",") {
		out = append(out, s)
	}
	return out
}

// join is Fn::Join [delimiter, [values...]].
func (e *evaluator) join(arg any) (any, error) {
	args := asList(arg)
	if len(args) != 2 {
		return nil, fmt.Errorf("Fn::Join %v: want [delimiter, list]", arg)
	}
	v, err := e.eval(args[1])
	if err != nil {
		return nil, err
	}
	var parts []string
	for _, x := range asList(v) {
		s, err := e.scalar(x)
		if err != nil {
			return nil, fmt.Errorf("Fn::Join: %w", err)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, asString(args[0])), nil
}

func (e *evaluator) getAtt(id, attr string) (any, error) {
	if err := e.exists(id); err != nil {
		return nil, err
	}
	if attr == "Arn" {
		return e.st.ResourceARN(id), nil
	}
	return e.st.ResourceARN(id) + "/" + attr, nil
}

// exists checks that the resource id is in the template and created for this stack.
func (e *evaluator) exists(id string) error {
	r := asMap(dig(e.tmpl, "Resources", id))
	if r == nil {
		return fmt.Errorf("no parameter or resource %q", id)
	}
	if cond, ok := r["Condition"].(string); ok {
		holds, err := e.condition(cond)
		if err != nil {
			return err
		}
		if !holds {
			return fmt.Errorf("resource %s is not created: its condition %s is false", id, cond)
		}
	}
	return nil
}

var subVar = regexp.MustCompile(`\$\{([^}]*)\}`)

// sub evaluates Fn::Sub: a string, or [string, {name: value}].
func (e *evaluator) sub(arg any) (any, error) {
	text, vars := asString(arg), map[string]any{}
	if l := asList(arg); len(l) == 2 {
		text, vars = asString(l[0]), asMap(l[1])
	}
	var firstErr error
	out := subVar.ReplaceAllStringFunc(text, func(m string) string {
		name := m[2 : len(m)-1]
		if rest, ok := strings.CutPrefix(name, "!"); ok {
			return "${" + rest + "}" // ${!Literal}
		}
		var v any
		var err error
		switch x, ok := vars[name]; {
		case ok:
			v, err = e.eval(x)
		case strings.Contains(name, ".") && !strings.HasPrefix(name, "AWS::"):
			res, attr, _ := strings.Cut(name, ".")
			v, err = e.getAtt(res, attr)
		default:
			v, err = e.ref(name)
		}
		s, isString := v.(string)
		if err == nil && !isString {
			err = fmt.Errorf("${%s} is %v, not a string", name, v)
		}
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("Fn::Sub: %w", err)
		}
		return s
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// condition evaluates the named condition of the template's Conditions.
func (e *evaluator) condition(name string) (bool, error) {
	if v, ok := e.conditions[name]; ok {
		return v, nil
	}
	def := dig(e.tmpl, "Conditions", name)
	if def == nil {
		return false, fmt.Errorf("no condition %q", name)
	}
	v, err := e.boolean(def)
	if err != nil {
		return false, fmt.Errorf("condition %s: %w", name, err)
	}
	e.conditions[name] = v
	return v, nil
}

// boolean evaluates a condition function.
func (e *evaluator) boolean(v any) (bool, error) {
	fn, arg, ok := intrinsic(v)
	if !ok {
		return false, fmt.Errorf("%v is not a condition function", v)
	}
	args := asList(arg)
	switch fn {
	case "Condition":
		return e.condition(asString(arg))
	case "Fn::Equals":
		if len(args) != 2 {
			return false, errors.New("Fn::Equals needs 2 arguments")
		}
		a, err := e.scalar(args[0])
		if err != nil {
			return false, err
		}
		b, err := e.scalar(args[1])
		return a == b, err
	case "Fn::Not":
		if len(args) != 1 {
			return false, errors.New("Fn::Not needs 1 argument")
		}
		b, err := e.boolean(args[0])
		return !b, err
	case "Fn::And", "Fn::Or":
		all := fn == "Fn::And"
		for _, a := range args {
			b, err := e.boolean(a)
			if err != nil {
				return false, err
			}
			if b != all {
				return b, nil
			}
		}
		return all, nil
	}
	return false, fmt.Errorf("%s is not a condition function", fn)
}

// scalar evaluates v to its text, as Fn::Equals compares it.
func (e *evaluator) scalar(v any) (string, error) {
	r, err := e.eval(v)
	if err != nil {
		return "", err
	}
	switch r := r.(type) {
	case string:
		return r, nil
	case int:
		return strconv.Itoa(r), nil
	case bool, float64:
		return fmt.Sprint(r), nil
	}
	return "", fmt.Errorf("%v is not a scalar", r)
}
