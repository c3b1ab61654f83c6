#!/usr/bin/env bash
# The step behind action.yml: `certirank check` on each file in $CERTIRANK_FILES with the claims in
# $CERTIRANK_CLAIMS (one per line), Markdown reports appended to $GITHUB_STEP_SUMMARY, the gate's exit code
# (the worst over the files: 2 for bad input, else the largest of 0/1/3) written to $GITHUB_OUTPUT and returned.
set -uo pipefail
certirank=${CERTIRANK:-certirank}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
output=${GITHUB_OUTPUT:-/dev/null}

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf '%s' "$s"; }

args=()
while IFS= read -r line || [ -n "$line" ]; do
  claim=$(trim "$line")
  [ -n "$claim" ] && args+=(--claim "$claim")
done <<< "${CERTIRANK_CLAIMS:-}"
if [ ${#args[@]} -eq 0 ]; then
  echo "error: the action needs at least one claim (input 'claims', one per line, e.g. A>B)" >&2
  echo "exit-code=2" >> "$output"
  exit 2
fi
[ -n "$(trim "${CERTIRANK_ALPHA:-}")" ] && args+=(--alpha "$(trim "$CERTIRANK_ALPHA")")
[ -n "$(trim "${CERTIRANK_MARGIN:-}")" ] && args+=(--margin "$(trim "$CERTIRANK_MARGIN")")
fail_on=$(trim "${CERTIRANK_FAIL_ON:-any}")
fail_on=${fail_on:-any}
if [ "$fail_on" != "any" ] && [ "$fail_on" != "reversed" ]; then
  echo "error: the action's input 'fail-on' must be any or reversed, got '$fail_on'" >&2
  echo "exit-code=2" >> "$output"
  exit 2
fi

worst=0
files=0
while IFS= read -r line || [ -n "$line" ]; do
  file=$(trim "$line")
  [ -z "$file" ] && continue
  files=$((files + 1))
  "$certirank" check "$file" "${args[@]}" --markdown | tee -a "$summary"
  rc=${PIPESTATUS[0]}
  # fail-on reversed: a claim not yet certified passes; only one certified the other way (3) fails
  [ "$fail_on" = "reversed" ] && [ "$rc" -eq 1 ] && rc=0
  if [ "$rc" -eq 2 ] || [ "$worst" -eq 2 ]; then worst=2
  elif [ "$rc" -gt "$worst" ]; then worst=$rc
  fi
done <<< "${CERTIRANK_FILES:-}"
if [ "$files" -eq 0 ]; then
  echo "error: the action needs at least one file (input 'files', one path per line)" >&2
  worst=2
fi
echo "exit-code=$worst" >> "$output"
exit "$worst"
