/** The tools list as every surface publishes it; compared byte for byte with test/golden/tools_list.json. */
import { TOOL_LIST } from './registry';
import { jsonSchema } from './contract';

export function toolsList(): unknown[] {
  return TOOL_LIST.map(t => ({
    name: t.name,
    title: t.title,
    description: t.description,
    annotations: t.annotations,
    input_schema: jsonSchema(t.input, 'input'),
    output_schema: jsonSchema(t.output, 'output'),
  }));
}
