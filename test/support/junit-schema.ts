/**
 * Validates a JUnit XML document against the Jenkins xUnit plugin's published JUnit schema
 * (test/fixtures/junit/junit-10.xsd, MIT; origin in the file), with libxml2's xmllint compiled to
 * WebAssembly (xmllint-wasm): no native tool, no network. For tests: the JUnit that
 * `switchboard conformance --junit` and `switchboard check --junit` write must pass it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateXML } from 'xmllint-wasm';

const XSD_PATH = fileURLToPath(new URL('../fixtures/junit/junit-10.xsd', import.meta.url));
let xsd: string | undefined;

export async function validateJUnit(xml: string): Promise<{ valid: boolean; errors: string[] }> {
  xsd ??= readFileSync(XSD_PATH, 'utf8');
  // xmllint-wasm's default of 256 pages (16 MiB) is too small for a few MB of report.
  const bytes = Buffer.byteLength(xml, 'utf8');
  const pages = Math.min(65_536, 256 + Math.ceil((bytes * 8) / 65_536));
  const result = await validateXML({
    xml: [{ fileName: 'report.xml', contents: xml }],
    schema: [{ fileName: 'junit-10.xsd', contents: xsd }],
    initialMemoryPages: pages,
    maxMemoryPages: Math.max(pages, 4096),
  });
  return { valid: result.valid, errors: result.errors.map((e) => e.rawMessage || e.message) };
}
