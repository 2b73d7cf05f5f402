export { hasSampleData, removeSampleData } from './remove-sample';
export { SAMPLE_DAYS, sampleEvents, seedSampleTraffic } from './sample-traffic';
