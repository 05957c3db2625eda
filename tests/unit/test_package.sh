#!/usr/bin/env bash
# test_package: ./memlab package, the three platforms, for the coalescing lab, no GPU needed.
#   tests/unit/test_package.sh PATH/TO/memlab_skeleton PATH/TO/memlab_grade PATH/TO/coalescing
#
# Every refusal: one line on stderr, exit 2, nothing written (a wrong platform, lab or number of
# arguments; an OUT that is a file, is not empty, cannot be made or written; a bad
# MEMLAB_GRADER_IMAGE; a lab without a rubric or with a malformed one; a student pack).
# Then each generated file against the fields its platform documents
# (handouts/instructor/platforms.md names the pages):
#   prairielearn: info.json parses and enables external grading (gradingMethod External, image,
#     the entrypoint that tests/run.sh is, a timeout of at most 600 s that covers the rubric where
#     it can); question.html has a pl-file-editor for kernels.cu whose text, unescaped, is the
#     skeleton tool's student version (its TODOs, no solution line) and survives PrairieLearn's
#     Mustache pass, and the grader's results in the submission panel; tests/rubric is the rubric,
#     hidden cases and all; tests/run.sh runs the grader with the right paths and turns the
#     grader's exit 2 (no results: a missing or oversized kernels.cu) into a score of 0,
#     "gradable": false, with the grader's line (run here with /grade and /memlab moved into a
#     scratch directory and a stand-in for ./memlab); the Dockerfile builds memlab on a CUDA 13
#     devel image and leaves out grades-*; every lab's question ships its handout in
#     clientFilesQuestion/ with the figures it shows (every local link resolves there), linked
#     from question.html, which names the lab's header only where the lab has one.
#   gradescope: setup.sh (the CUDA 13 toolkit, ./memlab setup, the build), run_autograder and the
#     checkout in memlab/ (the full rubric and the reference solution; no .git, build or
#     grades-*); run_autograder runs the grader with the right paths, keeps its results, and
#     turns its exit 2 (a missing or oversized kernels.cu) into results.json with a score of 0
#     and the grader's line (run with /autograder moved into a scratch directory and a stand-in
#     for ./memlab).
#   classroom: the tree is the student pack's plus ASSIGNMENT.md and the workflow (ASSIGNMENT.md's
#     links, the handout's among them, and the handout's own links resolve in it); the lab's
#     kernels.cu is the student version, its host program the instructor's; the workflow parses
#     (PyYAML, or a line-by-line reading of its few shapes) and has one autograding step per
#     visible case that needs no reference solution, each with the case's points as max-score,
#     the grade command of that case and a timeout covering it, then the reporter with every
#     step's result; each step's command runs here up to the GPU (exit 3 with no device); no
#     hidden case of any lab is anywhere in the repository.
# In a student pack (STUDENT.md at the root) only the refusals run: the pack refuses to package.
set -uo pipefail
skeleton=${1:?usage: test_package.sh MEMLAB_SKELETON MEMLAB_GRADE COALESCING_PROGRAM}
grade=${2:?usage: test_package.sh MEMLAB_SKELETON MEMLAB_GRADE COALESCING_PROGRAM}
program=${3:?usage: test_package.sh MEMLAB_SKELETON MEMLAB_GRADE COALESCING_PROGRAM}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
export MEMLAB_SKELETON=$skeleton MEMLAB_GRADE=$grade
unset MEMLAB_GRADER_IMAGE
lab=04_coalescing
memlab=$root/memlab

# ---- refusals: one line, exit 2, nothing written ----------------------------------------------
area=$work/area # where the refused OUTs would go; nothing in it may change
mkdir -p "$area/empty" "$area/full" "$area/read-only" "$area/read-only-empty"
echo "notes" >"$area/full/notes.txt"
touch "$area/file"
chmod a-w "$area/read-only" "$area/read-only-empty"
as_other_user=()
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null 2>&1; then
  # root writes anywhere: the unwritable cases run as nobody.
  as_other_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  chmod o+rx "$work" "$area"
fi

expect_refused() { # DESCRIPTION, PATTERN OF THE LINE, COMMAND...
  local what=$1 pattern=$2 before after status
  shift 2
  before=$(find "$area" -printf '%p %s %m\n' | sort)
  timeout 120 "$@" >"$work/out" 2>"$work/err"
  status=$?
  after=$(find "$area" -printf '%p %s %m\n' | sort)
  if [[ $status != 2 ]]; then
    fail "$what: exit $status, expected 2: $(head -c 300 "$work/err")"
  elif [[ $(wc -l <"$work/err") != 1 ]]; then
    fail "$what: $(wc -l <"$work/err") lines on stderr, expected 1: $(head -c 300 "$work/err")"
  elif ! grep -q -- "$pattern" "$work/err"; then
    fail "$what: the line does not say '$pattern': $(cat "$work/err")"
  fi
  [[ ! -s $work/out ]] || fail "$what: wrote to stdout: $(head -c 200 "$work/out")"
  [[ $before == "$after" ]] || fail "$what: something was written: $(diff <(echo "$before") <(echo "$after") | head -5)"
}

expect_refused "no arguments" "takes a platform, a lab and a directory" "$memlab" package
expect_refused "two arguments" "takes a platform, a lab and a directory" "$memlab" package prairielearn coalescing
expect_refused "four arguments" "takes a platform, a lab and a directory" \
  "$memlab" package prairielearn coalescing "$area/a" "$area/b"
expect_refused "an unknown platform" "unknown platform 'moodle': prairielearn, gradescope or classroom" \
  "$memlab" package moodle coalescing "$area/new"
expect_refused "an empty platform" "unknown platform ''" "$memlab" package "" coalescing "$area/new"
expect_refused "an unknown lab" "no lab program 'coalesce'" \
  "$memlab" package prairielearn coalesce "$area/new"
expect_refused "an empty lab" "no lab program ''" "$memlab" package classroom "" "$area/new"

if [[ -e $root/STUDENT.md ]]; then
  expect_refused "a student pack" "this is a student pack" \
    "$memlab" package prairielearn coalescing "$area/new"
  expect_refused "a student pack (classroom)" "this is a student pack" \
    "$memlab" package classroom coalescing "$area/new"
  expect_refused "a student pack (gradescope)" "this is a student pack" \
    "$memlab" package gradescope coalescing "$area/new"
  if ((failures > 0)); then
    echo "$failures failed"
    exit 1
  fi
  echo "package: a student pack refuses to package, with one line (the rest needs the instructor's tree)"
  exit 0
fi

command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed to read the JSON, HTML and YAML"; exit 1; }

for platform in prairielearn gradescope classroom; do
  expect_refused "$platform into a directory that is not empty" "$area/full is not empty" \
    "$memlab" package "$platform" coalescing "$area/full"
  expect_refused "$platform over a file" "$area/file exists and is not a directory" \
    "$memlab" package "$platform" coalescing "$area/file"
  expect_refused "$platform into a missing parent" "cannot write '$area/missing/out'" \
    "$memlab" package "$platform" coalescing "$area/missing/out"
  expect_refused "$platform into an empty name" "cannot write ''" "$memlab" package "$platform" coalescing ""
  if [[ $(id -u) != 0 || ${#as_other_user[@]} -gt 0 ]]; then
    expect_refused "$platform into a read-only directory" "cannot write '$area/read-only/out'" \
      "${as_other_user[@]}" "$memlab" package "$platform" coalescing "$area/read-only/out"
    expect_refused "$platform into an empty read-only directory" "cannot write to '$area/read-only-empty'" \
      "${as_other_user[@]}" "$memlab" package "$platform" coalescing "$area/read-only-empty"
  fi
done
[[ $(id -u) != 0 || ${#as_other_user[@]} -gt 0 ]] ||
  echo "running as root without setpriv: the read-only directory cases are left out"
for image in "Memlab-Grader:cuda13" "memlab grader" "registry.example.edu:5000/memlab" "memlab:"; do
  expect_refused "MEMLAB_GRADER_IMAGE '$image'" "is not an image name" \
    env MEMLAB_GRADER_IMAGE="$image" "$memlab" package prairielearn coalescing "$area/empty"
done

# A tree of its own for what the real one cannot show: a lab with no rubric, a malformed rubric,
# a student pack. The driver and its scripts (tools/lib.sh, tools/package/), the lab and the
# templates are all that packaging reads first.
tree=$work/tree
mkdir -p "$tree/labs" "$tree/tools/grade"
cp "$memlab" "$tree/memlab"
cp -R "$root/tools/lib.sh" "$root/tools/package" "$tree/tools/"
cp -R "$root/labs/$lab" "$tree/labs/"
cp -R "$root/tools/grade/platforms" "$tree/tools/grade/"
rm "$tree/labs/$lab/rubric"
expect_refused "a lab without a rubric" "lab coalescing has no rubric" \
  "$tree/memlab" package prairielearn coalescing "$area/empty"
printf 'case broken 2 visible --n 5\ncheck frobnicate\n' >"$tree/labs/$lab/rubric"
expect_refused "a malformed rubric" "rubric:2" "$tree/memlab" package classroom coalescing "$area/empty"
cp "$root/labs/$lab/rubric" "$tree/labs/$lab/rubric"
touch "$tree/STUDENT.md"
expect_refused "a student pack" "this is a student pack" \
  "$tree/memlab" package prairielearn coalescing "$area/empty"
rm "$tree/STUDENT.md"

# ---- PrairieLearn --------------------------------------------------------------------------------
pl=$area/empty # an empty directory is taken
if ! "$memlab" package prairielearn coalescing "$pl" >"$work/out" 2>"$work/err"; then
  fail "package prairielearn failed: $(cat "$work/err")"
fi
grep -q "prairielearn package of coalescing in $pl" "$work/out" || fail "package prairielearn said: $(cat "$work/out")"
# The handout ships in clientFilesQuestion/ with the figures it shows, laid out as in handouts/,
# and the students' README where it links to it (../README.md).
shown=$(grep -o '](figures/[^)#[:space:]]*' "$root/handouts/$lab.md" | sed 's|^](|clientFilesQuestion/handouts/|')
! grep -q '](\.\./README\.md' "$root/handouts/$lab.md" || shown+=$'\nclientFilesQuestion/README.md'
expected_files=$(printf '%s\n' README.md "clientFilesQuestion/handouts/$lab.md" $shown \
  grader-image/Dockerfile grader-image/Dockerfile.dockerignore info.json question.html \
  tests/rubric tests/run.sh | sort -u)
files=$(cd "$pl" && find . -type f | sed 's|^\./||' | sort)
[[ $files == "$expected_files" ]] || fail "the question's files are: ${files//$'\n'/ }"
"$skeleton" "$root/labs/$lab/kernels.cu" -o "$work/student.cu" || fail "the skeleton tool failed"
"$skeleton" --solution-lines "$root/labs/$lab/kernels.cu" >"$work/solution" || fail "--solution-lines failed"
[[ -s $work/solution ]] || fail "no solution line in labs/$lab/kernels.cu: nothing to look for"

python3 -m json.tool "$pl/info.json" >/dev/null || fail "info.json does not parse"
python3 - "$pl" "$root/labs/$lab/rubric" "$work/student.cu" "$work/solution" <<'EOF' || failures=$((failures + 1))
import html, json, os, re, sys
question, rubric, student, solution = sys.argv[1:5]
errors = []
def check(ok, what):
    if not ok:
        errors.append(what)

# info.json: docs.prairielearn.com/externalGrading (externalGradingOptions) and the question
# info.json fields every question has.
info = json.load(open(os.path.join(question, "info.json")))
check(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", info.get("uuid", "")),
      "info.json: uuid is not a UUID: %r" % info.get("uuid"))
check(info.get("type") == "v3", "info.json: type is not v3")
check(info.get("title", "").startswith("Lab 04: "), "info.json: title %r" % info.get("title"))
check(isinstance(info.get("topic"), str) and info["topic"], "info.json: no topic")
check(info.get("singleVariant") is True, "info.json: singleVariant is not true")
check(info.get("gradingMethod") == "External", "info.json: gradingMethod is not External")
options = info.get("externalGradingOptions", {})
check(options.get("enabled") is True, "info.json: external grading is not enabled")
check(options.get("image") == "memlab-grader:cuda13", "info.json: image %r" % options.get("image"))
check(options.get("entrypoint") == "/grade/tests/run.sh", "info.json: entrypoint %r" % options.get("entrypoint"))
run = os.path.join(question, "tests", "run.sh")
check(os.access(run, os.X_OK), "tests/run.sh, the entrypoint, is not executable")
# The worst case of the rubric, counted here from the rubric itself: one compile (90 s), each
# case's time limit, again for its reference run (time_ratio, ~ reference), 120 s for its
# predictions (~ predicted); PrairieLearn takes at most 600 s.
worst, default, case = 90, 60, None
cases = []
for line in open(rubric):
    words = line.split("|")[0].split()
    if not words or words[0].startswith("#"):
        continue
    if words[0] == "case":
        case = {"name": words[1], "timeout": default, "reference": False, "model": False}
        cases.append(case)
    elif words[0] == "timeout":
        if case is None:
            default = int(words[1])
        else:
            case["timeout"] = int(words[1])
    elif words[0] == "check":
        if len(words) > 3 and words[2] == "~":
            case[{"reference": "reference", "predicted": "model"}[words[3]]] = True
        elif words[1] == "time_ratio":
            case["reference"] = True
for case in cases:
    worst += case["timeout"] * (2 if case["reference"] else 1) + (120 if case["model"] else 0)
timeout = options.get("timeout")
check(isinstance(timeout, int) and timeout == min(600, worst),
      "info.json: timeout %r, expected min(600, %d)" % (timeout, worst))
readme = open(os.path.join(question, "README.md")).read()
check("up to %d s" % worst in readme, "README.md does not give the worst case, %d s" % worst)

# question.html: pl-file-editor (file-name, ace-mode, the text between the tags), inside
# pl-question-panel; pl-external-grader-results in pl-submission-panel.
page = open(os.path.join(question, "question.html")).read()
editors = re.findall(r"<pl-file-editor([^>]*)>(.*?)</pl-file-editor>", page, re.S)
check(len(editors) == 1, "question.html: %d pl-file-editor elements" % len(editors))
attributes, text = editors[0] if editors else ("", "")
check('file-name="kernels.cu"' in attributes, "question.html: the editor is not for kernels.cu")
check("source-file-name" not in attributes, "question.html: the editor both holds and names its text")
code = html.unescape(text)
check(code == open(student).read(), "question.html: the editor's text is not the skeleton of kernels.cu")
check("TODO" in code, "question.html: the editor's text has no TODO")
check(re.search(r"<[A-Za-z/!]", text) is None, "question.html: the code holds markup (< not escaped)")
# The one Mustache tag the page may hold: the URL of clientFilesQuestion/, in the handout's link.
check(re.sub(r"\{\{options\.client_files_question_url\}\}", "", page).count("{{") == 0,
      "question.html: a '{{' other than the handout's URL would go through PrairieLearn's Mustache pass")
links = re.findall(r'href="\{\{options\.client_files_question_url\}\}/([^"]*)"', page)
check(links == ["handouts/04_coalescing.md"], "question.html: its links into clientFilesQuestion are %r" % links)
for link in links:
    check(os.path.isfile(os.path.join(question, "clientFilesQuestion", link)),
          "question.html links to %s, which clientFilesQuestion/ does not hold" % link)
check("may include the CUDA headers," in page and "coalescing.h" not in page,
      "question.html: lab 04 has no header, but the page says what else a file may include")
student_lines = {line.strip() for line in open(student)}
page_lines = {line.strip() for line in html.unescape(page).splitlines()}
for line in open(solution):
    line = line.strip()
    if line and line not in student_lines and line in page_lines:
        errors.append("question.html holds a solution line: %s" % line)
panel = re.search(r"<pl-question-panel>(.*?)</pl-question-panel>", page, re.S)
check(panel and "<pl-file-editor" in panel.group(1), "question.html: the editor is not in pl-question-panel")
panel = re.search(r"<pl-submission-panel>(.*?)</pl-submission-panel>", page, re.S)
check(panel and "<pl-external-grader-results></pl-external-grader-results>" in panel.group(1),
      "question.html: no pl-external-grader-results in pl-submission-panel")
# As PrairieLearn reads it, where its libraries are here: Mustache first, then lxml, element by
# element (the editor takes element.text).
try:
    import chevron, lxml.html
except ImportError:
    print("chevron or lxml not here: question.html read with the standard library only")
else:
    rendered = chevron.render(page, {"params": {}, "options": {"client_files_question_url": "CLIENT"}})
    check('href="CLIENT/handouts/04_coalescing.md"' in rendered,
          "question.html: Mustache does not render the handout's link")
    found = [e for f in lxml.html.fragments_fromstring(rendered) if not isinstance(f, str)
             for e in f.iter("pl-file-editor")]
    element = lxml.html.fragment_fromstring(lxml.html.tostring(found[0], encoding="unicode"))
    check(element.text == open(student).read() and len(element) == 0,
          "question.html: lxml does not read the skeleton back from the editor")

for error in errors:
    print("FAIL: " + error)
sys.exit(1 if errors else 0)
EOF

cmp -s "$pl/tests/rubric" "$root/labs/$lab/rubric" || fail "tests/rubric is not the lab's rubric"
hidden=$(awk '$1 == "case" && $4 != "visible" { print $2 }' "$root/labs/$lab/rubric")
[[ -n $hidden ]] || fail "labs/$lab/rubric has no hidden case: the test shows nothing of them"
while read -r name; do
  grep -q "^case $name " "$pl/tests/rubric" || fail "tests/rubric lacks the case $name"
done < <(awk '$1 == "case" { print $2 }' "$root/labs/$lab/rubric")

# The entrypoint, run with /grade and /memlab moved into a scratch directory and a stand-in for
# ./memlab that records its arguments and does what STAND_IN says.
bash -n "$pl/tests/run.sh" || fail "tests/run.sh is not valid bash"
# shellcheck disable=SC2016 # $results is the entrypoint's variable
grep -q '^./memlab grade coalescing /grade/student/kernels.cu --format prairielearn --out "$results"' "$pl/tests/run.sh" ||
  fail "tests/run.sh does not run the grader on /grade/student/kernels.cu"
grep -q '^results=/grade/results/results.json$' "$pl/tests/run.sh" || fail "tests/run.sh does not write /grade/results/results.json"
fake=$work/entrypoint
sed -e "s|/grade/|$fake/grade/|g" -e "s#\([ =]\)/memlab#\1$fake/memlab#g" "$pl/tests/run.sh" >"$work/run.sh"
grep -q "^if ! cd $fake/memlab; then$" "$work/run.sh" || fail "the entrypoint does not work in /memlab"
mkdir -p "$fake/memlab/labs/$lab"
cat >"$fake/memlab/memlab" <<STAND_IN
#!/usr/bin/env bash
echo "\$*" >"$fake/arguments"
case \$STAND_IN in
  graded) echo '{"gradable": true, "score": 0.5, "tests": []}' >"\$7"; exit 1 ;;
  refused) echo 'memlab grade: the submission kernels.cu is over 256 KiB "big"' >&2; exit 2 ;;
esac
STAND_IN
chmod +x "$fake/memlab/memlab"
entrypoint() { # STAND_IN behaviour
  rm -rf "$fake/grade" "$fake/arguments"
  mkdir -p "$fake/grade/student" "$fake/grade/tests"
  cp "$pl/tests/rubric" "$fake/grade/tests/"
  echo "// the student's" >"$fake/grade/student/kernels.cu"
  STAND_IN=$1 bash "$work/run.sh" >/dev/null 2>&1
}
entrypoint graded || fail "the entrypoint exited $? for a graded submission"
[[ $(cat "$fake/arguments" 2>/dev/null) == "grade coalescing $fake/grade/student/kernels.cu --format prairielearn --out $fake/grade/results/results.json" ]] ||
  fail "the entrypoint ran: $(cat "$fake/arguments" 2>/dev/null)"
cmp -s "$fake/memlab/labs/$lab/rubric" "$pl/tests/rubric" || fail "the entrypoint did not put tests/rubric in the lab"
grep -q '"score": 0.5' "$fake/grade/results/results.json" || fail "the entrypoint changed the grader's results"
entrypoint refused || fail "the entrypoint exited $? for a refused submission"
python3 -c '
import json, sys
results = json.load(open(sys.argv[1]))
assert results["gradable"] is False and results["score"] == 0, results
line = "Not graded, score 0 (exit status 2): memlab grade: the submission kernels.cu is over 256 KiB \"big\""
assert results["message"] == line and results["format_errors"] == [line], results
' "$fake/grade/results/results.json" || fail "a refusal (exit 2) did not become a score of 0 (gradable: false) with its line"
rm "$fake/grade/tests/rubric"
STAND_IN=graded bash "$work/run.sh" >/dev/null 2>&1
grep -q '"gradable": false' "$fake/grade/results/results.json" || fail "no tests/rubric did not become gradable: false"

docker=$pl/grader-image/Dockerfile
if ! grep -Eq '^FROM \$\{CUDA_IMAGE\}$' "$docker" ||
  ! grep -Eq '^ARG CUDA_IMAGE=nvidia/cuda:13\.[0-9.]+-devel-ubuntu[0-9.]+$' "$docker"; then
  fail "the Dockerfile does not start from a CUDA 13 devel image"
fi
grep -q '^COPY \. /memlab$' "$docker" || fail "the Dockerfile does not copy the checkout to /memlab"
grep -q '&& \./memlab setup' "$docker" || fail "the Dockerfile does not install memlab's packages with ./memlab setup"
grep -q '\./memlab grade --check-rubric labs/\*/rubric' "$docker" || fail "the Dockerfile does not build memlab"
[[ $(grep -n 'MEMLAB_NO_BUILD=1' "$docker" | cut -d: -f1) -gt $(grep -n '^RUN ' "$docker" | cut -d: -f1) ]] ||
  fail "the Dockerfile sets MEMLAB_NO_BUILD before it builds"
grep -q 'NVIDIA_VISIBLE_DEVICES=all' "$docker" || fail "the Dockerfile does not ask the NVIDIA runtime for the GPUs"
for ignored in .git build 'build-\*' 'grades-\*'; do
  grep -qx "$ignored" "$pl/grader-image/Dockerfile.dockerignore" || fail "the image's build context keeps $ignored"
done
# The build step's command, run here on this tree (the grading tools given: it reads the rubrics).
(cd "$root" && ./memlab grade --check-rubric labs/*/rubric >/dev/null) || fail "the Dockerfile's build command fails here"
if ! grep -q "docker build -f grader-image/Dockerfile -t memlab-grader:cuda13" "$pl/README.md" ||
  ! grep -q " $root\$" "$pl/README.md"; then
  fail "README.md does not say how to build the image from this checkout"
fi

# MEMLAB_GRADER_IMAGE names the image.
if env MEMLAB_GRADER_IMAGE=ghcr.io/course/memlab-grader:fall26 "$memlab" package prairielearn coalescing \
  "$work/pl-image" >/dev/null 2>&1; then
  python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["externalGradingOptions"]["image"] == "ghcr.io/course/memlab-grader:fall26"' \
    "$work/pl-image/info.json" || fail "MEMLAB_GRADER_IMAGE is not the image of info.json"
  [[ $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["uuid"])' "$work/pl-image/info.json") != \
    $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["uuid"])' "$pl/info.json") ]] ||
    fail "two questions have the same uuid"
else
  fail "package prairielearn with MEMLAB_GRADER_IMAGE failed"
fi

# Every lab's question ships its handout and the figures it shows: each local link of the shipped
# handout resolves inside clientFilesQuestion/; the page names the lab's header where it has one.
for handout in "$root"/handouts/[0-9][0-9]_*.md; do
  directory=$(basename "$handout" .md)
  name=${directory#[0-9][0-9]_}
  [[ -f $root/labs/$directory/rubric ]] || continue
  out=$work/pl-$name
  if ! "$memlab" package prairielearn "$name" "$out" >/dev/null 2>"$work/err"; then
    fail "package prairielearn $name failed: $(cat "$work/err")"
    continue
  fi
  [[ ! -s $work/err ]] || fail "package prairielearn $name warned: $(cat "$work/err")"
  shipped=$out/clientFilesQuestion/handouts
  cmp -s "$handout" "$shipped/$directory.md" || fail "$name: the question's handout is not handouts/$directory.md"
  for link in $(grep -o '\]([^)#[:space:]]*' "$handout" | sed 's/^](//' | grep -v '://'); do
    [[ -f $shipped/$link ]] || fail "$name: the shipped handout links to $link, which the question lacks"
    if [[ $link == ../README.md ]]; then
      # The students' README (tools/skeleton/student_readme.md), not the instructor's.
      grep -q '^## How the program runs your kernels' "$shipped/$link" &&
        ! cmp -s "$root/README.md" "$shipped/$link" ||
        fail "$name: the question's ../README.md is not the students' README"
      continue
    fi
    cmp -s "$root/handouts/$link" "$shipped/$link" || fail "$name: the question's $link is not handouts/$link"
  done
  grep -q "href=\"{{options.client_files_question_url}}/handouts/$directory.md\"" "$out/question.html" ||
    fail "$name: question.html does not link the handout"
  if [[ -f $root/labs/$directory/$name.h ]]; then
    grep -q "may include the CUDA headers and <code>$name.h</code>," "$out/question.html" ||
      fail "$name: question.html does not name the lab's header $name.h"
  else
    grep -q "may include the CUDA headers," "$out/question.html" && ! grep -q "$name\.h" "$out/question.html" ||
      fail "$name: the lab has no header, but question.html names one"
  fi
done

# ---- Gradescope ---------------------------------------------------------------------------------
gradescope=$work/gradescope
if ! "$memlab" package gradescope coalescing "$gradescope" >"$work/out" 2>"$work/err"; then
  fail "package gradescope failed: $(cat "$work/err")"
fi
grep -q "gradescope package of coalescing in $gradescope" "$work/out" || fail "package gradescope said: $(cat "$work/out")"
[[ $(cd "$gradescope" && ls -A | LC_ALL=C sort | tr '\n' ' ') == "README.md memlab run_autograder setup.sh " ]] ||
  fail "the autograder's files are: $(cd "$gradescope" && ls -A | tr '\n' ' ')"
for file in run_autograder setup.sh; do
  [[ -x $gradescope/$file ]] || fail "$file is not executable"
  bash -n "$gradescope/$file" || fail "$file is not valid bash"
done
# memlab/: the checkout, less what the grader image's ignore file leaves out; the full rubric.
for name in .git build grades-coalescing; do
  [[ ! -e $gradescope/memlab/$name ]] || fail "the autograder's checkout holds $name"
done
for path in "$root"/build-*; do
  [[ ! -e $gradescope/memlab/$(basename "$path") ]] || fail "the autograder's checkout holds $(basename "$path")"
done
for path in memlab CMakeLists.txt common labs handouts tools; do
  [[ -e $gradescope/memlab/$path ]] || fail "the autograder's checkout lacks $path"
done
cmp -s "$gradescope/memlab/labs/$lab/rubric" "$root/labs/$lab/rubric" ||
  fail "the autograder's rubric is not the lab's, hidden cases and all"
cmp -s "$gradescope/memlab/labs/$lab/kernels.cu" "$root/labs/$lab/kernels.cu" ||
  fail "the autograder's kernels.cu is not the reference solution"
grep -q '^apt-get install -y --no-install-recommends cuda-toolkit-13-0$' "$gradescope/setup.sh" ||
  fail "setup.sh does not install the CUDA 13 toolkit"
grep -q '^cd /autograder/source/memlab$' "$gradescope/setup.sh" && grep -q '^\./memlab setup$' "$gradescope/setup.sh" &&
  grep -q '^\./memlab grade --check-rubric labs/\*/rubric$' "$gradescope/setup.sh" ||
  fail "setup.sh does not install memlab's packages and build in /autograder/source/memlab"
# The grading time the question's README gives (checked above against the rubric), here too.
worst=$(grep -o 'up to [0-9]* s' "$pl/README.md")
[[ -n $worst ]] && grep -q "$worst in all" "$gradescope/README.md" || fail "README.md does not give the grading time, $worst"
grep -q 'zip -r ../autograder.zip setup.sh run_autograder memlab' "$gradescope/README.md" ||
  fail "README.md does not say how to zip the autograder"
# run_autograder, with /autograder moved into a scratch directory and a stand-in for ./memlab
# that records its arguments and does what STAND_IN says.
# shellcheck disable=SC2016 # $results is run_autograder's variable
grep -q '^MEMLAB_NO_BUILD=1 ./memlab grade coalescing /autograder/submission/kernels.cu --format gradescope \\$' \
  "$gradescope/run_autograder" || fail "run_autograder does not grade /autograder/submission/kernels.cu"
grep -q '^results=/autograder/results/results.json$' "$gradescope/run_autograder" ||
  fail "run_autograder does not write /autograder/results/results.json"
fake=$work/autograder
sed "s|/autograder/|$fake/autograder/|g" "$gradescope/run_autograder" >"$work/run_autograder"
mkdir -p "$fake/autograder/source/memlab"
cat >"$fake/autograder/source/memlab/memlab" <<STAND_IN
#!/usr/bin/env bash
echo "\$*" >"$fake/arguments"
case \$STAND_IN in
  graded) echo '{"score": 3, "tests": []}' >"\$7"; exit 1 ;;
  missing) echo "memlab grade: no submission \$3 (no such file)" >&2; exit 2 ;;
  oversized) echo 'memlab grade: the submission kernels.cu holds 300000 bytes, "more" than the limit' >&2; exit 2 ;;
esac
STAND_IN
chmod +x "$fake/autograder/source/memlab/memlab"
autograder() { # STAND_IN behaviour
  rm -rf "$fake/autograder/submission" "$fake/autograder/results" "$fake/arguments"
  mkdir -p "$fake/autograder/submission"
  echo "// the student's" >"$fake/autograder/submission/kernels.cu"
  STAND_IN=$1 bash "$work/run_autograder" >/dev/null 2>&1
}
autograder graded || fail "run_autograder exited $? for a graded submission"
[[ $(cat "$fake/arguments" 2>/dev/null) == "grade coalescing $fake/autograder/submission/kernels.cu --format gradescope --out $fake/autograder/results/results.json" ]] ||
  fail "run_autograder ran: $(cat "$fake/arguments" 2>/dev/null)"
grep -q '"score": 3' "$fake/autograder/results/results.json" || fail "run_autograder changed the grader's results"
for behaviour in missing oversized; do
  autograder "$behaviour" || fail "run_autograder exited $? when the grader exited 2 ($behaviour)"
  python3 - "$fake/autograder/results/results.json" "$behaviour" "$fake" <<'EOF' ||
import json, sys
path, behaviour, fake = sys.argv[1:4]
results = json.load(open(path))
line = {"missing": "memlab grade: no submission %s/autograder/submission/kernels.cu (no such file)" % fake,
        "oversized": 'memlab grade: the submission kernels.cu holds 300000 bytes, "more" than the limit'}[behaviour]
assert results["score"] == 0 and results["tests"] == [], results
assert results["output"] == "Not graded, score 0 (exit status 2): " + line, results
assert results["output_format"] == "text", results
EOF
    fail "run_autograder: the grader's exit 2 ($behaviour) did not become a score of 0 with its line: $(cat "$fake/autograder/results/results.json")"
done
rm -r "$fake/autograder/source/memlab"
autograder graded
grep -q '"score": 0, "output": "Not graded, score 0: the autograder has no memlab checkout' \
  "$fake/autograder/results/results.json" || fail "no checkout did not become a score of 0 with a reason"

# ---- GitHub Classroom ----------------------------------------------------------------------------
classroom=$work/classroom
if ! "$memlab" package classroom coalescing "$classroom" >"$work/out" 2>"$work/err"; then
  fail "package classroom failed: $(cat "$work/err")"
fi
# The student pack's tree, as ./memlab student-pack makes it, plus two files.
"$memlab" student-pack "$work/pack.tar.gz" >/dev/null 2>&1 || fail "student-pack failed"
mkdir "$work/pack"
tar -xzf "$work/pack.tar.gz" -C "$work/pack" || fail "the student pack does not unpack"
difference=$(LC_ALL=C diff -r "$work/pack/memlab" "$classroom" 2>&1)
[[ $difference == "Only in $classroom: .github
Only in $classroom: ASSIGNMENT.md" ]] || fail "the repository is not the student pack plus the workflow and ASSIGNMENT.md: $difference"
[[ $(cd "$classroom/.github" && find . -type f) == "./workflows/classroom.yml" ]] || fail ".github holds more than the workflow"
cmp -s "$classroom/labs/$lab/kernels.cu" "$work/student.cu" || fail "the repository's kernels.cu is not the student version"
# ASSIGNMENT.md's links, and the lab handout's that it sends students to, resolve in the repository.
for link in $(grep -o '\]([^)#[:space:]]*' "$classroom/ASSIGNMENT.md" | sed 's/^](//' | grep -v '://'); do
  [[ -f $classroom/$link ]] || fail "ASSIGNMENT.md links to $link, which the repository lacks"
done
grep -q "](handouts/$lab.md)" "$classroom/ASSIGNMENT.md" || fail "ASSIGNMENT.md does not link the handout"
for link in $(grep -o '\]([^)#[:space:]]*' "$root/handouts/$lab.md" | sed 's/^](//' | grep -v '://'); do
  [[ -f $classroom/handouts/$link ]] || fail "the repository's handout links to $link, which the repository lacks"
done
cmp -s "$classroom/labs/$lab/coalescing.cu" "$root/labs/$lab/coalescing.cu" || fail "the repository's coalescing.cu is not the instructor's host program"
"$grade" --visible-cases "$root/labs/$lab/rubric" >"$work/visible" || fail "--visible-cases failed"
cmp -s "$classroom/labs/$lab/rubric" "$work/visible" || fail "the repository's rubric is not the visible cases"
# No hidden case of any lab, anywhere (the workflow and ASSIGNMENT.md included).
for rubric in "$root"/labs/[0-9][0-9]_*/rubric; do
  while read -r name; do
    where=$(grep -rlw -- "$name" "$classroom")
    [[ -z $where ]] || fail "hidden case $name of ${rubric#"$root"/} is in the repository: $where"
  done < <(awk '$1 == "case" && $4 != "visible" { print $2 }' "$rubric")
done

python3 - "$classroom" "$root/labs/$lab/rubric" <<'EOF' >"$work/steps" || failures=$((failures + 1))
import re, sys
repository, rubric = sys.argv[1:3]
errors = []
def check(ok, what):
    if not ok:
        errors.append(what)
text = open(repository + "/.github/workflows/classroom.yml").read()

def read_workflow(text):
    """The workflow as PyYAML reads it, or, without PyYAML, read line by line: the shapes this
    file has (mappings, lists of scalars or of mappings, [a, b] lists, quoted scalars)."""
    try:
        import yaml
        return yaml.safe_load(text)
    except ImportError:
        print("PyYAML not here: the workflow read line by line", file=sys.stderr)
    def scalar(value):
        value = value.strip()
        if value.startswith('"') and value.endswith('"'):
            return value[1:-1].replace('\\"', '"')
        if value.startswith("[") and value.endswith("]"):
            return [part.strip() for part in value[1:-1].split(",")]
        if re.fullmatch(r"-?[0-9]+", value):
            return int(value)
        if re.fullmatch(r"-?[0-9]*\.[0-9]+", value):
            return float(value)
        return {"true": True, "false": False}.get(value, value)
    lines = [(len(l) - len(l.lstrip(" ")), l.strip()) for l in text.splitlines()
             if l.strip() and not l.lstrip().startswith("#")]
    def block(i, indent):
        if lines[i][1].startswith("- "):
            items = []
            while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
                rest = lines[i][1][2:]
                if re.match(r'^[A-Za-z"][^:]*:( |$)', rest):   # a mapping in the list
                    lines[i] = (indent + 2, rest)
                    value, i = block(i, indent + 2)
                else:
                    value, i = scalar(rest), i + 1
                items.append(value)
            return items, i
        mapping = {}
        while i < len(lines) and lines[i][0] == indent and not lines[i][1].startswith("- "):
            key, _, value = lines[i][1].partition(":")
            key = scalar(key)
            if value.strip():
                mapping[key], i = scalar(value), i + 1
            elif i + 1 < len(lines) and lines[i + 1][0] >= indent and (lines[i + 1][0] > indent or lines[i + 1][1].startswith("- ")):
                mapping[key], i = block(i + 1, lines[i + 1][0])
            else:
                mapping[key], i = None, i + 1
        return mapping, i
    workflow, end = block(0, 0)
    if end != len(lines):
        raise SystemExit("FAIL: the workflow does not read to its end (line %d): %s" % (end, lines[end][1]))
    return workflow

workflow = read_workflow(text)
# Classroom's reporter needs the name "Autograding Tests" and one job, run-autograding-tests
# (classroom-resources/autograding-grading-reporter README).
check(workflow.get("name") == "Autograding Tests", "the workflow is not named Autograding Tests")
triggers = workflow.get("on", workflow.get(True))
check(triggers and "push" in triggers, "the workflow does not run on push")
jobs = workflow.get("jobs", {})
check(list(jobs) == ["run-autograding-tests"], "the jobs are %r" % list(jobs))
job = jobs.get("run-autograding-tests", {})
check(job.get("runs-on") == ["self-hosted", "gpu"], "runs-on is %r" % job.get("runs-on"))
check("group" in (workflow.get("concurrency") or {}), "no concurrency group")
steps = job.get("steps", [])
check(steps and steps[0].get("uses", "").startswith("actions/checkout@"), "the first step is not the checkout")

# What the rubric says: its visible cases, less those that compare with the reference solution.
cases, case, default = [], None, 60
for line in open(rubric):
    words = line.split("|")[0].split()
    if not words or words[0].startswith("#"):
        continue
    if words[0] == "case":
        case = {"name": words[1], "points": float(words[2]), "visible": words[3] == "visible",
                "reference": False, "timeout": default}
        cases.append(case)
    elif words[0] == "timeout":
        if case is None:
            default = int(words[1])
        else:
            case["timeout"] = int(words[1])
    elif words[0] == "check" and ((len(words) > 3 and words[2:4] == ["~", "reference"]) or
                                  (words[1] == "time_ratio" and words[2] != "~")):
        case["reference"] = True
expected = [c for c in cases if c["visible"] and not c["reference"]]
left_out = [c for c in cases if c["visible"] and c["reference"]]
check(expected and left_out, "the coalescing rubric should have both kinds of visible case")

graders = [s for s in steps if s.get("uses") == "classroom-resources/autograding-command-grader@v1"]
check([s["with"]["test-name"] for s in graders] == [c["name"] for c in expected],
      "the autograding steps are %r, expected one per visible case without a reference: %r"
      % ([s["with"]["test-name"] for s in graders], [c["name"] for c in expected]))
ids = []
for step, case in zip(graders, expected):
    given = step["with"]
    check(re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", step.get("id", "")), "step %s: id %r" % (case["name"], step.get("id")))
    ids.append(step.get("id", ""))
    check(given.get("command") == "./memlab grade coalescing labs/04_coalescing/kernels.cu --case " + case["name"],
          "step %s: command %r" % (case["name"], given.get("command")))
    check(float(given.get("max-score", -1)) == case["points"],
          "step %s: max-score %r, the case is worth %g" % (case["name"], given.get("max-score"), case["points"]))
    minutes = given.get("timeout")
    check(isinstance(minutes, int) and minutes * 60 >= 90 + case["timeout"],
          "step %s: timeout %r minutes does not cover a compile and the case" % (case["name"], minutes))
    print(given["command"])   # for the shell: each one is run
check(len(set(ids)) == len(ids), "step ids repeat: %r" % ids)
total = sum(c["points"] for c in expected)
check(float(re.search(r"\(([0-9.]+) in all\)", text).group(1)) == total, "the workflow's comment gives another total than %g" % total)
for case in left_out:
    check(re.search(r"^#.*\b%s \(" % re.escape(case["name"]), text, re.M),
          "the workflow does not say that %s is left out" % case["name"])
reporter = steps[-1] if steps else {}
check(reporter.get("uses") == "classroom-resources/autograding-grading-reporter@v1", "the last step is not the reporter")
check(reporter.get("with", {}).get("runners") == ",".join(ids), "the reporter's runners are %r" % reporter.get("with", {}).get("runners"))
check(reporter.get("env") == {i.upper() + "_RESULTS": "${{ steps.%s.outputs.result }}" % i for i in ids},
      "the reporter's env is %r" % reporter.get("env"))
assignment = open(repository + "/ASSIGNMENT.md").read()
for case in expected:
    check("| `%s` | %g |" % (case["name"], case["points"]) in assignment, "ASSIGNMENT.md lacks %s" % case["name"])
check("worth %g points" % total in assignment, "ASSIGNMENT.md does not give the total %g" % total)
for error in errors:
    print("FAIL: " + error, file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
# Each step's command in the repository, as the runner runs it, with this build's program: the
# case is found and the file compiled; with no device visible nothing is graded (exit 3). On a
# GPU host a case under compute-sanitizer is graded all the same (the sanitizer runs the program
# with the GPU whatever CUDA_VISIBLE_DEVICES says): there it passes or fails (exit 0 or 1).
build=$(cd "$(dirname "$program")/.." && pwd)
gpu_here=0
if nvidia-smi -L >/dev/null 2>&1; then gpu_here=1; fi
ran=0
while IFS= read -r command; do
  # shellcheck disable=SC2086 # the command's words, as the runner splits them
  (cd "$classroom" && env CUDA_VISIBLE_DEVICES= MEMLAB_BUILD="$build" timeout 120 $command) \
    >"$work/out" 2>"$work/err"
  status=$?
  name=${command##* }
  if [[ $status == 3 ]] && grep -q "^case $name: NOT GRADED" "$work/out"; then
    :
  elif ((gpu_here)) && [[ $status == 0 || $status == 1 ]] &&
    grep -q "^case $name: \(PASS\|FAIL\)," "$work/out"; then
    :
  else
    fail "'$command' in the repository: exit $status, expected 3 (no device): $(tail -n 3 "$work/err")"
  fi
  ran=$((ran + 1))
done <"$work/steps"
((ran > 0)) || fail "no step command was run"

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "package: the three platforms' files hold what they document; $ran Classroom steps run up to the GPU"
