/**
 * coreb's own `github.com/stretchr/testify/assert` for Go test programs (HumanEval-X's Go tests
 * import it, and nothing can be downloaded in the sandbox): the assertion functions those tests use,
 * with testify's equality (reflect.DeepEqual, `[]byte` by bytes.Equal) and its report-and-continue
 * behaviour (a failed assertion marks the test failed through `t.Errorf`). Written for coreb; it is
 * placed under the build's GOPATH, in a package the candidate's code cannot declare names in.
 */

/** Where the package goes inside the build directory (the Go build's GOPATH is `<box>/.gopath`). */
export const TESTIFY_ASSERT_PATH = '.gopath/src/github.com/stretchr/testify/assert/assert.go';

/** The package's source. */
export const TESTIFY_ASSERT_SOURCE = String.raw`// Package assert: the assertions of github.com/stretchr/testify/assert that test programs use,
// written for coreb's judge (same equality: reflect.DeepEqual, []byte by content).
package assert

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
)

// TestingT is what the assertions report to (*testing.T).
type TestingT interface {
	Errorf(format string, args ...interface{})
}

type helper interface {
	Helper()
}

// Assertions binds the assertions to one TestingT.
type Assertions struct {
	t TestingT
}

// New returns Assertions reporting to t.
func New(t TestingT) *Assertions {
	return &Assertions{t: t}
}

// ObjectsAreEqual reports whether expected and actual are equal as testify decides it.
func ObjectsAreEqual(expected, actual interface{}) bool {
	if expected == nil || actual == nil {
		return expected == actual
	}
	exp, ok := expected.([]byte)
	if !ok {
		return reflect.DeepEqual(expected, actual)
	}
	act, ok := actual.([]byte)
	if !ok {
		return false
	}
	if exp == nil || act == nil {
		return exp == nil && act == nil
	}
	return bytes.Equal(exp, act)
}

func message(msgAndArgs []interface{}) string {
	if len(msgAndArgs) == 0 {
		return ""
	}
	if f, ok := msgAndArgs[0].(string); ok && len(msgAndArgs) > 1 {
		return " (" + fmt.Sprintf(f, msgAndArgs[1:]...) + ")"
	}
	return " (" + fmt.Sprint(msgAndArgs...) + ")"
}

// Fail reports a failed assertion.
func Fail(t TestingT, failure string, msgAndArgs ...interface{}) bool {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	t.Errorf("%s%s", failure, message(msgAndArgs))
	return false
}

func isNil(v interface{}) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Ptr, reflect.Slice, reflect.UnsafePointer:
		return r.IsNil()
	}
	return false
}

func isEmpty(v interface{}) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Array, reflect.Chan, reflect.Map, reflect.Slice, reflect.String:
		return r.Len() == 0
	case reflect.Ptr:
		if r.IsNil() {
			return true
		}
		return isEmpty(r.Elem().Interface())
	}
	return reflect.DeepEqual(v, reflect.Zero(r.Type()).Interface())
}

func toFloat(v interface{}) (float64, bool) {
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(r.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(r.Uint()), true
	case reflect.Float32, reflect.Float64:
		return r.Float(), true
	}
	return 0, false
}

// Equal asserts that expected and actual are equal (ObjectsAreEqual).
func Equal(t TestingT, expected, actual interface{}, msgAndArgs ...interface{}) bool {
	if ObjectsAreEqual(expected, actual) {
		return true
	}
	return Fail(t, fmt.Sprintf("not equal: expected %#v, actual %#v", expected, actual), msgAndArgs...)
}

// NotEqual asserts that expected and actual are not equal.
func NotEqual(t TestingT, expected, actual interface{}, msgAndArgs ...interface{}) bool {
	if !ObjectsAreEqual(expected, actual) {
		return true
	}
	return Fail(t, fmt.Sprintf("should not be %#v", actual), msgAndArgs...)
}

// True asserts that value is true.
func True(t TestingT, value bool, msgAndArgs ...interface{}) bool {
	if value {
		return true
	}
	return Fail(t, "should be true", msgAndArgs...)
}

// False asserts that value is false.
func False(t TestingT, value bool, msgAndArgs ...interface{}) bool {
	if !value {
		return true
	}
	return Fail(t, "should be false", msgAndArgs...)
}

// Nil asserts that object is nil.
func Nil(t TestingT, object interface{}, msgAndArgs ...interface{}) bool {
	if isNil(object) {
		return true
	}
	return Fail(t, fmt.Sprintf("expected nil, got %#v", object), msgAndArgs...)
}

// NotNil asserts that object is not nil.
func NotNil(t TestingT, object interface{}, msgAndArgs ...interface{}) bool {
	if !isNil(object) {
		return true
	}
	return Fail(t, "expected a value, got nil", msgAndArgs...)
}

// Empty asserts that object is empty (zero value, or no elements).
func Empty(t TestingT, object interface{}, msgAndArgs ...interface{}) bool {
	if isEmpty(object) {
		return true
	}
	return Fail(t, fmt.Sprintf("should be empty: %#v", object), msgAndArgs...)
}

// NotEmpty asserts that object is not empty.
func NotEmpty(t TestingT, object interface{}, msgAndArgs ...interface{}) bool {
	if !isEmpty(object) {
		return true
	}
	return Fail(t, fmt.Sprintf("should not be empty: %#v", object), msgAndArgs...)
}

// Len asserts that object has length n.
func Len(t TestingT, object interface{}, n int, msgAndArgs ...interface{}) bool {
	r := reflect.ValueOf(object)
	switch r.Kind() {
	case reflect.Array, reflect.Chan, reflect.Map, reflect.Slice, reflect.String:
		if r.Len() == n {
			return true
		}
		return Fail(t, fmt.Sprintf("should have %d items, has %d", n, r.Len()), msgAndArgs...)
	}
	return Fail(t, fmt.Sprintf("cannot take the length of %#v", object), msgAndArgs...)
}

// InDelta asserts that expected and actual are numbers within delta of each other.
func InDelta(t TestingT, expected, actual interface{}, delta float64, msgAndArgs ...interface{}) bool {
	e, ok1 := toFloat(expected)
	a, ok2 := toFloat(actual)
	if !ok1 || !ok2 {
		return Fail(t, "InDelta takes numbers", msgAndArgs...)
	}
	if math.IsNaN(e) && math.IsNaN(a) {
		return true
	}
	if math.IsNaN(e) || math.IsNaN(a) || math.Abs(e-a) > delta {
		return Fail(t, fmt.Sprintf("%v and %v differ by more than %v", expected, actual, delta), msgAndArgs...)
	}
	return true
}

func (a *Assertions) Equal(expected, actual interface{}, msgAndArgs ...interface{}) bool {
	return Equal(a.t, expected, actual, msgAndArgs...)
}

func (a *Assertions) NotEqual(expected, actual interface{}, msgAndArgs ...interface{}) bool {
	return NotEqual(a.t, expected, actual, msgAndArgs...)
}

func (a *Assertions) True(value bool, msgAndArgs ...interface{}) bool {
	return True(a.t, value, msgAndArgs...)
}

func (a *Assertions) False(value bool, msgAndArgs ...interface{}) bool {
	return False(a.t, value, msgAndArgs...)
}

func (a *Assertions) Nil(object interface{}, msgAndArgs ...interface{}) bool {
	return Nil(a.t, object, msgAndArgs...)
}

func (a *Assertions) NotNil(object interface{}, msgAndArgs ...interface{}) bool {
	return NotNil(a.t, object, msgAndArgs...)
}

func (a *Assertions) Empty(object interface{}, msgAndArgs ...interface{}) bool {
	return Empty(a.t, object, msgAndArgs...)
}

func (a *Assertions) NotEmpty(object interface{}, msgAndArgs ...interface{}) bool {
	return NotEmpty(a.t, object, msgAndArgs...)
}

func (a *Assertions) Len(object interface{}, n int, msgAndArgs ...interface{}) bool {
	return Len(a.t, object, n, msgAndArgs...)
}

func (a *Assertions) InDelta(expected, actual interface{}, delta float64, msgAndArgs ...interface{}) bool {
	return InDelta(a.t, expected, actual, delta, msgAndArgs...)
}
`;
