/** A tool's answer: text blocks for the model (a note such as a truncation is its own block). */
export type ToolOutput = string | string[];
