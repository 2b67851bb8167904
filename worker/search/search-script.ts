import SEARCH_FILTER from "../../sandbox/search_filter.py?raw";

/**
 * The Python program a search runs in the container
 * (`python3 -c SEARCH_SCRIPT CONFIG`): it starts ripgrep and writes the
 * search's own NDJSON lines (protocol/search.ts), keeping ripgrep's long
 * lines in the container (sandbox/search_filter.py says how).
 */
export const SEARCH_SCRIPT = SEARCH_FILTER;
