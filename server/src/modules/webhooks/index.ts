export { type DispatcherOptions, WebhookDispatcher } from './dispatcher';
export { getWebhook, listDeliveries, removeWebhook, setWebhook, type WebhookView } from './endpoint';
export { enqueueDelivery } from './enqueue';
export { SecretBox } from './secret-box';
export { SIGNATURE_HEADER, signPayload, verifySignature } from './sign';
