package verify

import (
	"fmt"
	"strconv"
	"strings"
)

// deviceWidth is the width of code written for the device's own wavefront
// (WARP_SIZE set from the wavefront macro, warpSize, the macro itself):
// a shuffle's default width, warpSize, is then the right one.
const deviceWidth = -1

// deviceWidthNames are the names that stand for the device's width.
var deviceWidthNames = map[string]bool{"WARP_SIZE": true, "warpSize": true, "__AMDGCN_WAVEFRONT_SIZE__": true, "__AMDGCN_WAVEFRONT_SIZE": true, "wavefront_size": true}

// laneLoop is a for loop's header: the variable it starts and the tokens of
// its start value and of its condition.
type laneLoop struct {
	name       string
	init, cond [2]int
	body       [2]int // token range of the loop's body
}

// laneLoops lists the for loops of a unit that start a variable
// (`for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)`).
func laneLoops(toks []token) []laneLoop {
	var out []laneLoop
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].text != "for" || toks[i+1].text != "(" {
			continue
		}
		end := matching(toks, i+1)
		if end < 0 {
			continue
		}
		semi := []int{}
		for j := i + 2; j < end; j++ {
			if toks[j].text == ";" {
				semi = append(semi, j)
			}
		}
		if len(semi) != 2 {
			continue
		}
		for j := i + 2; j+1 < semi[0]; j++ {
			if toks[j+1].text == "=" && isWord(toks[j].text) {
				body := [2]int{end + 1, end + 1}
				if end+1 < len(toks) && toks[end+1].text == "{" {
					if e := matching(toks, end+1); e > 0 {
						body[1] = e
					}
				} else {
					for k := end + 1; k < len(toks); k++ {
						if toks[k].text == ";" {
							body[1] = k
							break
						}
					}
				}
				out = append(out, laneLoop{name: toks[j].text, init: [2]int{j + 2, semi[0]}, cond: [2]int{semi[0] + 1, semi[1]}, body: body})
				break
			}
		}
	}
	return out
}

// writtenFor reads the largest lane offset a shuffle's offset argument is
// written for: the literal itself, the start or bound of the loop around
// the shuffle that sets it, or deviceWidth when that is expressed in the
// device's width. 0 means the code does not say (an offset passed in), why
// names the evidence.
func writtenFor(toks []token, arg [2]int, loops []laneLoop) (int, string) {
	if mentionsDevice(toks, arg) {
		return deviceWidth, ""
	}
	if v, ok := evalConst(toks, arg); ok {
		return v, fmt.Sprintf("its offset is %d", v)
	}
	if arg[1]-arg[0] != 1 || !isWord(toks[arg[0]].text) {
		return 0, ""
	}
	name := toks[arg[0]].text
	best, why := 0, ""
	for _, l := range loops {
		if l.name != name || arg[0] < l.body[0] || arg[0] >= l.body[1] {
			continue
		}
		if mentionsDevice(toks, l.init) || mentionsDevice(toks, l.cond) {
			return deviceWidth, ""
		}
		if v, ok := evalConst(toks, l.init); ok && v > best {
			best, why = v, fmt.Sprintf("its loop starts %s at %d", name, v)
		}
		// `offset < 64`: the largest offset the loop reaches is below it.
		for j := l.cond[0]; j+1 < l.cond[1]; j++ {
			if op := toks[j].text; op == "<" || op == "<=" {
				if v, ok := evalConst(toks, [2]int{j + 1, l.cond[1]}); ok {
					if op == "<" {
						v /= 2
					}
					if v > best {
						best, why = v, fmt.Sprintf("its loop runs %s up to %s %s", name, op, joinToks(toks, [2]int{j + 1, l.cond[1]}))
					}
				}
			}
		}
	}
	return best, why
}

func mentionsDevice(toks []token, r [2]int) bool {
	for _, t := range toks[r[0]:r[1]] {
		if deviceWidthNames[t.text] {
			return true
		}
	}
	return false
}

// evalConst evaluates integer literals joined by * / + - (left to right,
// parentheses ignored): the shapes lane offsets take (16, 32 / 2).
func evalConst(toks []token, r [2]int) (int, bool) {
	val, op, seen := 0, "+", false
	for _, t := range toks[r[0]:r[1]] {
		switch t.text {
		case "(", ")":
			continue
		case "+", "-", "*", "/":
			op = t.text
			continue
		}
		n, err := strconv.ParseInt(strings.TrimRight(t.text, "uUlL"), 0, 64)
		if err != nil {
			return 0, false
		}
		switch op {
		case "+":
			val += int(n)
		case "-":
			val -= int(n)
		case "*":
			val *= int(n)
		case "/":
			if n == 0 {
				return 0, false
			}
			val /= int(n)
		}
		seen = true
	}
	return val, seen
}

// constValue is the value a unit gives name (`#define NAME 32`, `constexpr
// int NAME = 32;`), or 0.
func constValue(toks []token, name string) int {
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].text != name {
			continue
		}
		if i >= 2 && toks[i-1].text == "define" && toks[i+1].text != "(" {
			if v, ok := evalConst(toks, [2]int{i + 1, i + 2}); ok {
				return v
			}
		}
		if toks[i+1].text == "=" && i+3 < len(toks) && toks[i+3].text == ";" {
			if v, ok := evalConst(toks, [2]int{i + 2, i + 3}); ok {
				return v
			}
		}
	}
	return 0
}

// isWord reports whether s is a C++ identifier.
func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) || i == 0 && s[i] >= '0' && s[i] <= '9' {
			return false
		}
	}
	return s != ""
}
