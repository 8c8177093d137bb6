export function bundleCli(outfile: string): Promise<string>;
