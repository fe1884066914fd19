/** The tools list as every surface publishes it; compared byte for byte with test/golden/tools_list.json. */
import { TOOL_LIST } from './registry';
import { jsonSchema } from './contract';
import { publishedOutputSchema } from './wire_schema';

export function toolsList(): unknown[] {
  return TOOL_LIST.map(t => ({
    name: t.name,
    title: t.title,
    description: t.description,
    annotations: t.annotations,
    input_schema: jsonSchema(t.input, 'input'),
    output_schema: publishedOutputSchema(t.output),
  }));
}
