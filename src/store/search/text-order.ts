// The code point order of both stores' ORDER BY, shared with the read model.
export { byNameThenId, compareText } from '../../directory/read-model/text-order.js';
