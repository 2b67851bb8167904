export function helpText(topic: string): string;
